#!/usr/bin/env bash
# Debian 13 (CI stage `debian13`, tests/RELIABILITY.md): in the Debian 13
# root of tools/debian13.sh (made once from Debian's archive, cached outside
# the clone), the README's test command as a user runs it there,
# `bash tools/setup.sh && bazel test //...` (Debian 13's g++ 14, Abseil
# 20240722, RocksDB 9.10), then three of Debian 12's stages with Debian 13's
# packages:
#   db_stress  RocksDB 9.10's own db_stress (tests/db_stress/run.sh, built
#              from Debian 13's rocksdb source and cached in the root's
#              /var/cache/rockpool/db_stress), a subset of the configurations
#              (DB_STRESS_CONFIGS below) stock, then pooled under the 9.10
#              librockpool_preload.so;
#   myrocks    MariaDB 11.8's MyRocks with librockpool_interpose.so
#              (tests/myrocks/run.sh), zlib and zstd, stock then pooled;
#   package    tests/package/run.sh: Debian 13's packages built, linted,
#              installed with apt, used (also by MyRocks, installed by the
#              myrocks stage before it), removed.
# Prints the tests and checks, each stage's own summary, and
# `debian13: N passed, M failed` last (tests that passed plus the stages'
# checks that passed; failed likewise); exits non-zero on any failure.
#
#   bash tests/debian13/run.sh [--no-db-stress] [--no-myrocks] [--no-package]
#
# Run on the host (as root) it enters the root itself; run inside it (as
# tools/debian13.sh does) it runs the steps. Bazel's disk cache and output
# base live in the root (tools/debian13.sh), so a second run rebuilds
# nothing that did not change.
set -uo pipefail
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SCRIPT_DIR/../.." && pwd)"
source "$REPO/tests/stage_lib.sh"
stage_init debian13

db_stress=1 myrocks=1 package=1
for a in "$@"; do
  case $a in
    --no-db-stress) db_stress=0 ;;
    --no-myrocks) myrocks=0 ;;
    --no-package) package=0 ;;
    -h|--help) stage_usage "$0"; exit 0 ;;
    *) stage_usage_error "unknown argument '$a'" ;;
  esac
done

codename=$( (. /etc/os-release && echo "${VERSION_CODENAME:-}") 2>/dev/null)
if [[ $codename != trixie ]]; then
  [[ $(id -u) -eq 0 ]] || stage_setup_fail "needs root (tools/debian13.sh: debootstrap, chroot)"
  exec bash "$REPO/tools/debian13.sh" -- bash tests/debian13/run.sh "$@"
fi

cd "$REPO"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0
failed=0

stage_say "$(. /etc/os-release && echo "$PRETTY_NAME"); $(g++ --version | head -n 1); RocksDB $(dpkg-query -W -f='${Version}' librocksdb-dev 2>/dev/null || echo '(not yet installed)')"
if ! bash tools/setup.sh; then
  stage_setup_fail "tools/setup.sh failed"
fi
t0=$SECONDS
# --keep_going: a target that fails to build must not hide the others' results.
bazel test --nocache_test_results --keep_going //... 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
p=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log" || true)
f=$(grep -cE '^//[^ ]+ +.*(FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)' "$log" || true)
s=$(grep -cE '^//[^ ]+ +SKIPPED' "$log" || true)
stage_say "bazel test //...: $p passed, $f failed, $s skipped (another RocksDB release's tests) ($((SECONDS - t0)) s)"
passed=$((passed + p))
failed=$((failed + f))
if ((status != 0 && f == 0)); then failed=$((failed + 1)); stage_say "bazel test exited $status"; fi

# sub_stage <name> <setup stage> <command...>: installs the stage's packages
# (tools/setup.sh --stage=...), runs a stage script that prints
# "<name>: N passed, M failed" last and adds its counts (a script that fails
# without a summary, or exits non-zero with none failed, counts one failure).
sub_stage() {
  local name=$1 setup=$2 t0=$SECONDS status p f
  shift 2
  if bash tools/setup.sh --stage="$setup"; then
    "$@" 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    p=$(sed -nE "s/^$name: ([0-9]+) passed, ([0-9]+) failed\$/\1/p" "$log" | tail -1)
    f=$(sed -nE "s/^$name: ([0-9]+) passed, ([0-9]+) failed\$/\2/p" "$log" | tail -1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-1}))
    if ((status != 0 && ${f:-1} == 0)); then failed=$((failed + 1)); fi
  else
    failed=$((failed + 1))
    stage_say "setup --stage=$setup FAIL"
  fi
  stage_say "$name: $((SECONDS - t0)) s"
}

# The objects the stages load, in bazel-bin's configuration (`bazel test`
# built its own copies in the test configuration). Their build is one check.
if ((db_stress || myrocks)); then
  t0=$SECONDS
  if bazel build //rocksdb_plugin:librockpool_preload.so //rocksdb_plugin:librockpool_interpose.so \
      //tools/process:libmalloc_counter.so >"$log" 2>&1; then
    passed=$((passed + 1))
    stage_say "bazel build of the preloaded objects PASS ($((SECONDS - t0)) s)"
  else
    tail -n 30 "$log"
    failed=$((failed + 1))
    stage_say "bazel build of the preloaded objects FAIL"
    db_stress=0 myrocks=0
  fi
  bin=$(bazel info bazel-bin 2>/dev/null)
fi

# db_stress: a subset of the configurations (tests/db_stress/run.sh --list),
# one per path the 9.10 preload object pools: zstd with dictionaries, zstd
# with deflate/inflate per block at the bottom, LZ4 and LZ4HC with a
# dictionary, blobs, the compressed secondary cache, open-time faults on
# reopens, and crash recovery. All of them took 20 min at load 8 here.
DB_STRESS_CONFIGS=zstd_dict,zstd_zlib_bottom,lz4hc_dict_bottom,blob_zstd,secondary_cache,faults,crash
if ((db_stress)); then
  sub_stage db_stress db_stress env ROCKPOOL_PRELOAD="$bin/rocksdb_plugin/legacy/librockpool_preload.so" \
    bash tests/db_stress/run.sh --only "$DB_STRESS_CONFIGS"
fi

# MyRocks: zlib and zstd, stock then pooled (no measure mode, and so no
# stock-pattern check: the essentials, in less time).
if ((myrocks)); then
  sub_stage myrocks myrocks env ROCKPOOL_INTERPOSE="$bin/rocksdb_plugin/legacy/librockpool_interpose.so" \
    MALLOC_COUNTER="$bin/tools/process/libmalloc_counter.so" \
    bash tests/myrocks/run.sh --no-measure --codecs=zlib,zstd
fi

if ((package)); then
  sub_stage package package bash tests/package/run.sh
fi

stage_say "took $(stage_elapsed) s"
stage_say "$passed passed, $failed failed"
((failed == 0 && passed > 0))
