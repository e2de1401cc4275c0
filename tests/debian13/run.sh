#!/usr/bin/env bash
# Debian 13 (CI stage `debian13`, tests/RELIABILITY.md): in the Debian 13
# root of tools/debian13.sh (made once from Debian's archive, cached outside
# the clone), the README's test command as a user runs it there,
# `bash tools/setup.sh && bazel test //...` (Debian 13's g++ 14, Abseil
# 20240722, RocksDB 9.10), then the package stage (tests/package/run.sh:
# Debian 13's packages built, linted, installed with apt, used, removed).
# Prints the tests and checks, each stage's own summary, and
# `debian13: N passed, M failed` last (tests that passed plus package checks
# that passed; failed likewise); exits non-zero on any failure.
#
#   bash tests/debian13/run.sh [--no-package]
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

package=1
for a in "$@"; do
  case $a in
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

if ((package)); then
  t0=$SECONDS
  if bash tools/setup.sh --stage=package; then
    bash tests/package/run.sh 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    p=$(sed -nE 's/^package: ([0-9]+) passed, ([0-9]+) failed$/\1/p' "$log" | tail -1)
    f=$(sed -nE 's/^package: ([0-9]+) passed, ([0-9]+) failed$/\2/p' "$log" | tail -1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-1}))
    if ((status != 0 && ${f:-1} == 0)); then failed=$((failed + 1)); fi
  else
    failed=$((failed + 1))
    stage_say "setup --stage=package FAIL"
  fi
  stage_say "package: $((SECONDS - t0)) s"
fi

stage_say "took $(stage_elapsed) s"
stage_say "$passed passed, $failed failed"
((failed == 0 && passed > 0))
