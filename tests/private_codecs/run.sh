#!/usr/bin/env bash
# The process matrix, second case: a program without libzstd/libz dlopens a module
# that carries its own zstd and zlib (built by build.sh from Debian's source
# packages, patched to be told apart), under librockpool_interpose.so with
# pooling on. For each way of loading it (plain RTLD_LOCAL, RTLD_DEEPBIND,
# 5 dlopen/dlclose cycles, both):
#   - no crash (exit 0);
#   - the module's calls ran its own copy: its versions are the private ones
#     (ZSTD_versionNumber() 10599, zlibVersion() "1.2.13.rockpool-private"),
#     every context it was handed was allocated by its copy's allocator,
#     nothing of its copy is left allocated when it returns, no foreign
#     pointer was freed into it;
#   - its output (digests of every compressed byte; the private copies write
#     other bytes than the system's) is identical to the run without the
#     object;
#   - nothing on stderr (ROCKPOOL_VERBOSE unset);
#   - the stats file reports zstd and zlib forwarded, the reason naming the
#     module (with RTLD_DEEPBIND the module never reaches rockpool, and a
#     codec a run does not use is never called: unused or forwarded).
# zlib_only and zstd_only run one codec each, so each codec's failure shows
# on its own.
# Plus the fixture: neither the program nor the module needs libzstd/libz,
# the module binds its codec calls dynamically (no -Bsymbolic), and the
# system's copies (libsystem_twin.so) compute other digests than the private
# ones, so a swap would show.
#
#   ROCKPOOL_INTERPOSE=.../librockpool_interpose.so tests/private_codecs/run.sh [--keep]
#
# Environment:
#   ROCKPOOL_INTERPOSE  the interposer (required); copied once into the work
#                       directory, so a rebuild during the stage cannot mix
#   TMPDIR              scratch root (default /tmp)
# Output: one line per check, `private_codecs: <check> PASS|FAIL [detail]`,
# and last `private_codecs: N passed, M failed`. Exit status non-zero if any
# check failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/../stage_lib.sh"
stage_init private_codecs
states_helper=$repo/tests/rocksdb_plugin/legacy/processes/process_test_util.py

while (($#)); do
  case "$1" in
    --keep) STAGE_KEEP_ALL=1; shift ;;
    -h|--help) stage_usage "$0"; exit 0 ;;
    *) stage_usage_error "unknown option $1" ;;
  esac
done
[[ -n ${ROCKPOOL_INTERPOSE:-} ]] || stage_usage_error "set ROCKPOOL_INTERPOSE to librockpool_interpose.so"
[[ -f $ROCKPOOL_INTERPOSE ]] || stage_usage_error "$ROCKPOOL_INTERPOSE not found"

build=$(bash "$here/build.sh" | tail -n 1) || stage_setup_fail "build.sh failed"
main=$build/private_codecs_main
module=$build/libprivate_codecs.so
twin=$build/libsystem_twin.so
work=$(mktemp -d "${TMPDIR:-/tmp}/rockpool-private-codecs.XXXXXX")
obj=$work/$(basename "$ROCKPOOL_INTERPOSE")
cp "$ROCKPOOL_INTERPOSE" "$obj"
stage_say "build $build; interposer $ROCKPOOL_INTERPOSE (sha256 $(sha256sum "$obj" | cut -c1-16)); work dir $work"

# --- the fixture -----------------------------------------------------------------------
needs_codec() { readelf -d "$1" | grep -E 'NEEDED.*\[lib(z|zstd)\.so' || true; }
n=$(needs_codec "$main")
stage_check "$([[ -z $n ]] && echo 1 || echo 0)" "fixture: the program needs neither libzstd nor libz" "$n"
n=$(needs_codec "$module")
stage_check "$([[ -z $n ]] && echo 1 || echo 0)" "fixture: the module needs neither libzstd nor libz" "$n"
sym=$(readelf -d "$module" | grep -E 'SYMBOLIC' || true)
relocs=$(readelf -rW "$module" | awk '$3 ~ /JUMP_SLOT|GLOB_DAT/ && ($5 == "ZSTD_createCCtx" || $5 == "deflateInit2_") { print $5 }' | sort -u | paste -sd, -)
stage_check "$([[ -z $sym && $relocs == "ZSTD_createCCtx,deflateInit2_" ]] && echo 1 || echo 0)" \
  "fixture: the module binds ZSTD_createCCtx and deflateInit2_ dynamically (no -Bsymbolic)" \
  "relocations: ${relocs:-none}${sym:+; $sym}"

# run <name> <with object 0|1> <main args...>: runs the program; leaves
# $work/<name>.{out,err,stats,cmp} and RUN_RC.
run() {
  local name=$1 with=$2 rc=0
  shift 2
  local env=(env -u LD_PRELOAD -u ROCKPOOL_OPTIONS -u ROCKPOOL_STATS -u ROCKPOOL_VERBOSE)
  if ((with)); then
    env+=(LD_PRELOAD="$obj" "ROCKPOOL_OPTIONS=$STAGE_POOL_OPTIONS" ROCKPOOL_STATS="$work/$name.stats"
          ROCKPOOL_STATS_SECONDS=0)
  fi
  stage_write_command "$work/$name.cmd" "${env[@]}" "$main" "$@"
  timeout --kill-after=10 300 "${env[@]}" "$main" "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  grep -v '^info:' "$work/$name.out" >"$work/$name.cmp" || true
  RUN_RC=$rc
}
private_result() {  # <cmp file>: the private copies ran, cleanly
  grep -q 'module versions: zstd=10599 zlib=1\.2\.13\.rockpool-private' "$1" &&
    ! grep -qE 'error|dlopen failed|dlclose failed|no private_codecs_run' "$1" &&
    ! grep 'module contexts:' "$1" | grep -vq 'allocator live=0 foreign_frees=0'
}
digests() { sed -nE 's/^module blocks=[0-9]+ (zlib=[0-9a-f]+)\/[0-9]+ (zstd=[0-9a-f]+)\/[0-9]+$/\1 \2/p' "$1" | head -n 1; }

run twin_stock 0 "$twin"
run private_stock 0 "$module"
read -r tz ts <<<"$(digests "$work/twin_stock.cmp")"
read -r pz ps <<<"$(digests "$work/private_stock.cmp")"
ok=0
[[ $RUN_RC == 0 && -n $tz && -n $ts && $tz != "$pz" && $ts != "$ps" ]] &&
  grep -q 'zstd=10504 zlib=1.2.13$' "$work/twin_stock.cmp" && ok=1
stage_check "$ok" "fixture: the system's copies give other digests than the private ones (a swap would show)" \
  "system: $tz $ts; private: $pz $ps"

# --- the variants ----------------------------------------------------------------------
# variant <name> <deepbind 0|1> <only: zlib|zstd|-> <main args...>: a codec
# the run does not use (only=the other one) may be reported unused or forwarded.
variant() {
  local name=$1 deepbind=$2 only=$3
  shift 3
  run "${name}_stock" 0 "$module" "$@"
  local stock_rc=$RUN_RC
  ok=0
  ((stock_rc == 0)) && private_result "$work/${name}_stock.cmp" && ok=1
  stage_check "$ok" "$name: without the object the module runs its own copies" \
    "exit $stock_rc; $(grep -m1 -E 'versions|error' "$work/${name}_stock.cmp" || true)"

  run "${name}_pooled" 1 "$module" "$@"
  local rc=$RUN_RC what
  what="exit $rc"
  ((rc > 128)) && what="killed by signal $((rc - 128))"
  stage_check "$((rc < 124 ? 1 : 0))" "$name: no crash with the object (no signal, no timeout)" "$what"
  ok=0
  ((rc == 0)) && private_result "$work/${name}_pooled.cmp" && ok=1
  stage_check "$ok" "$name: the module's calls ran its own copies (exit 0, versions, contexts)" \
    "$what; $(grep -E 'versions|error|contexts' "$work/${name}_pooled.cmp" | sort -u | head -n 3 | paste -sd';' -)"
  ok=0
  ((stock_rc == 0)) && cmp -s "$work/${name}_stock.cmp" "$work/${name}_pooled.cmp" && ok=1
  stage_check "$ok" "$name: output identical to the run without the object" \
    "$(diff "$work/${name}_stock.cmp" "$work/${name}_pooled.cmp" | head -n 4 | paste -sd';' -)"
  ok=0
  [[ ! -s $work/${name}_pooled.err ]] && ok=1
  stage_check "$ok" "$name: nothing on stderr (ROCKPOOL_VERBOSE unset)" "$(head -c 300 "$work/${name}_pooled.err")"

  local codec state reason
  while read -r codec state reason; do
    ok=0
    if ((deepbind)) || [[ $only != - && $only != "$codec" ]]; then
      [[ $state == unused || $state == forwarded ]] && ok=1
      stage_check "$ok" "$name: stats say $codec=unused|forwarded" "$codec=$state ${reason}"
    else
      [[ $state == forwarded && $reason == *"$(basename "$module")"* ]] && ok=1
      stage_check "$ok" "$name: stats say $codec=forwarded naming $(basename "$module")" \
        "$codec=$state reason=${reason}"
    fi
  done < <(python3 "$states_helper" codec-states "$work/${name}_pooled.stats")
}

variant plain 0 -
variant zlib_only 0 zlib --codecs zlib
variant zstd_only 0 zstd --codecs zstd
variant deepbind 1 - --deepbind
variant cycles 0 - --cycles 5
variant deepbind_cycles 1 - --deepbind --cycles 3

if ((STAGE_KEEP_ALL)); then
  stage_say "every run kept under $work (--keep)"
elif ((STAGE_FAILED == 0)); then
  rm -rf "$work"
else
  stage_say "runs kept under $work (<run>.cmd, .out, .err, .stats)"
fi
stage_say "took $(stage_elapsed) s"
stage_summary
((STAGE_FAILED == 0 && STAGE_PASSED > 0))
