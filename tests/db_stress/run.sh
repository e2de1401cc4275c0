#!/usr/bin/env bash
# Runs RocksDB's own db_stress (Debian's release: 7.8.3 on Debian 12, 9.10 on
# Debian 13, where tests/debian13/run.sh runs a subset) against rockpool's
# legacy face: every configuration below first stock (no preload), then
# pooled (the preload object interposing zstd/zlib/lz4 context creation). A configuration that fails
# stock is excluded (reported, not counted as a pass): its failure is
# RocksDB's, and a pooled run would prove nothing.
#
#   tests/db_stress/run.sh              CI: every configuration, bounded; 32
#                                       runs, 5.5-8 min on a 2-core VM (load
#                                       4-8), plus 25-140 s for a cold build
#   tests/db_stress/run.sh --long       10x the operations, 4x the reopens, 10
#                                       kill cycles of 30 s: about 1-1.5 h on 2
#                                       idle cores (CPU time x10-20), hours on
#                                       a busy machine
#   tests/db_stress/run.sh --only zlib,crash --stock
#
# Options:
#   --long          longer run (see above); --scale N sets the operations
#                   multiplier directly
#   --only A,B,...  only these configurations (names as printed)
#   --stock         stock runs only (no preload needed)
#   --list          print the configurations and their flags, run nothing
#   --keep          keep every run's directory (DB, LOGs, output, stats)
# Environment:
#   ROCKPOOL_PRELOAD  the preload object (required unless --stock), e.g.
#                     bazel-bin/rocksdb_plugin/legacy/librockpool_preload.so; copied
#                     once into the work directory, so a rebuild during the
#                     stage cannot mix two versions
#   DB_STRESS         the db_stress binary (default: what build.sh prints)
#   TMPDIR            scratch root (default /tmp); each run gets its own
#                     directory, removed when the run passed and kept (path
#                     printed) when it failed
#
# Output: one line per run,
#   db_stress: <config> <stock|pooled> PASS|FAIL <s>s leases=N created=N reused=N lib_bytes=N [...]
# (stock runs carry no rockpool, so their counts are 0), one line per excluded
# configuration, and last `db_stress: N passed, M failed`. Exit status is
# non-zero if any run failed or none passed.
#
# A pooled run passes only if db_stress exits 0 AND rockpool's totals show
# leases > 0 and reused > 0 (so a preload that never switched pooling on, or
# never saw RocksDB's codec calls, fails). The totals come from the file
# ROCKPOOL_STATS names (rewritten at exit and after every flush/compaction);
# if it is missing, from the last `rockpool report` line in the DB's LOGs.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source "$here/../stage_lib.sh"
stage_init db_stress

# --- installs -----------------------------------------------------------------------
# The db_stress binary: build.sh installs what it needs (apt) and builds it
# once; prints its path.
db_stress_binary() {
  bash "$here/build.sh" | tail -n 1
}

scale=1 long=0 stock_only=0 list_only=0
while (($#)); do
  case "$1" in
    --long) long=1; scale=10; shift ;;
    --scale) scale=$2; shift 2 ;;
    --only) STAGE_ONLY=$2; shift 2 ;;
    --stock) stock_only=1; shift ;;
    --list) list_only=1; shift ;;
    --keep) STAGE_KEEP_ALL=1; shift ;;
    -h|--help) stage_usage "$0"; exit 0 ;;
    *) stage_usage_error "unknown option $1" ;;
  esac
done
[[ $scale =~ ^[1-9][0-9]*$ ]] || stage_usage_error "--scale wants a positive integer"

# --- the configurations (COMMON, CONFIGS, crash recovery's settings) ---------------
source "$here/configs.sh"
if ((list_only)); then list_configs; exit 0; fi

# --- inputs -------------------------------------------------------------------------
if [[ -z ${DB_STRESS:-} ]]; then
  DB_STRESS=$(db_stress_binary)
fi
[[ -x $DB_STRESS ]] || stage_usage_error "$DB_STRESS is not executable"

work=$(mktemp -d "${TMPDIR:-/tmp}/rockpool-db-stress.XXXXXX")
preload=
if ((!stock_only)); then
  [[ -n ${ROCKPOOL_PRELOAD:-} ]] ||
    stage_usage_error "set ROCKPOOL_PRELOAD to the preload object (or pass --stock)"
  [[ -f $ROCKPOOL_PRELOAD ]] || stage_usage_error "$ROCKPOOL_PRELOAD not found"
  preload=$work/$(basename "$ROCKPOOL_PRELOAD")
  cp "$ROCKPOOL_PRELOAD" "$preload"
fi
stage_say "binary $DB_STRESS"
stage_say "preload ${ROCKPOOL_PRELOAD:-none} (sha256 $( [[ -n $preload ]] && sha256sum "$preload" | cut -c1-16 || echo -))"
stage_say "work dir $work; scale $scale"

# db_stress processes: the foreground runs' (stage_run_logged) and a crash
# run's (STAGE_BG_PID) are stopped if the stage is interrupted.
trap stage_stop_children EXIT
# fd 3: the stage's stderr, also while a run's group has stderr on its log.
exec 3>&2
trap 'stage_say "interrupted; work dir $work kept" >&3; exit 130' INT TERM

# --- one db_stress process -----------------------------------------------------------
# first_error <log>: the first line that says what went wrong.
first_error() {
  tr '\r' '\n' <"$1" |
    grep -aiE 'error|fail|terminate|assert|abort|segmentation|mismatch|corrupt|inconsistent|timed out' |
    grep -avE '^(Fail if OPTIONS file error|Read fault one in|Write fault one in|Open .*fault|Sync fault injection|Best efforts recovery|Sync fault)|Got errors 0 times|did not succeed$|^ *: ' |
    head -n 1 | sed -E 's/^(\.\.\. finished [0-9]+ ops *)+//' | cut -c1-300
}

# report <config> <mode> <ok 0|1> <seconds> <stats file> <db dir> [extra...]
# Decides PASS/FAIL (pooled: also leases>0 and reused>0) and prints the line.
# Returns 0 on PASS.
report() {
  local config=$1 mode=$2 ok=$3 secs=$4 stats=$5 db=$6
  shift 6
  local leases=0 created=0 reused=0 lib_bytes=0 in_use=- why=''
  if [[ $mode == pooled ]]; then
    read -r leases created reused lib_bytes in_use < <(stage_rockpool_totals "$stats" "$db")
    set -- "$@" "in_use=$in_use"
    if ((ok)) && ! ((leases > 0 && reused > 0)); then
      ok=0
      why=" (no pooling: leases=$leases reused=$reused)"
    fi
  fi
  local result=FAIL
  ((ok)) && result=PASS
  stage_say "$config $mode $result ${secs}s leases=$leases created=$created reused=$reused lib_bytes=$lib_bytes${*:+ $*}$why"
  ((ok))
}

# run_fg <mode> <dir> <timeout s> <flags...>: runs db_stress to completion;
# its output goes to <dir>/out.txt, its command to <dir>/cmd.txt. Pooled:
# ROCKPOOL_OPTIONS switches pooling on at load (db_stress clears the DB's
# listeners, so an OPTIONS-file listener never reaches it).
run_fg() {
  local mode=$1 dir=$2 limit=$3
  shift 3
  stage_mode_env "$mode" "$dir/rockpool_stats.txt" "$preload"
  stage_write_command "$dir/cmd.txt" "${STAGE_ENV[@]}" "$DB_STRESS" "$@"
  stage_run_logged "$dir/out.txt" "$limit" "${STAGE_ENV[@]}" "$DB_STRESS" "$@"
}
STAGE_FIRST_ERROR=first_error

# open_faults <db dir>: how many DB::Open attempts an injected fault failed
# ("Injected" in 7.8.3, "injected" in 9.10).
open_faults() {
  cat "$1"/LOG "$1"/LOG.old.* 2>/dev/null | grep -ci 'DB::Open() failed: IO error: injected' || true
}

# --- the ordinary configurations -------------------------------------------------------
# run_config <row of CONFIGS> <stock|pooled>: one run (stage_matrix runs each
# configuration stock, then pooled; a configuration that fails stock is
# excluded and not run pooled).
run_config() {
  local name ops flags_s mode=$2
  IFS='|' read -r name ops flags_s <<<"$1"
  local -a flags
  read -r -a flags <<<"$flags_s"
  # Reopens scale with --long too (db_stress needs reopen < ops_per_thread).
  local i
  for i in "${!flags[@]}"; do
    if [[ ${flags[$i]} =~ ^--reopen=([0-9]+)$ ]]; then
      flags[i]="--reopen=$((BASH_REMATCH[1] * reopen_scale))"
    fi
  done
  local limit=$((180 * scale))
  local dir=$work/$name-$mode
  mkdir -p "$dir"
  local start=$SECONDS ok=1
  run_fg "$mode" "$dir" "$limit" "${COMMON[@]}" "--ops_per_thread=$((ops * scale))" \
    "${flags[@]}" --db="$dir/db" || ok=0
  local extra=()
  [[ $flags_s == *open_*fault* ]] && extra+=("faults=$(open_faults "$dir/db")")
  if [[ $flags_s == *secondary_cache_uri* ]]; then
    extra+=("sec_cache_hits=$(sed -nE 's/^rocksdb\.secondary\.cache\.hits COUNT : ([0-9]+).*/\1/p' "$dir/out.txt" | tail -n 1)")
  fi
  if [[ $mode == stock ]] && ((!ok)); then
    # RocksDB's own failure: exclude the configuration, do not run pooled.
    local e
    e=$(first_error "$dir/out.txt")
    stage_exclude "$name" $((SECONDS - start)) "${e:-exit status non-zero}" "$dir"
    return 0
  fi
  if report "$name" "$mode" "$ok" "$((SECONDS - start))" "$dir/rockpool_stats.txt" "$dir/db" "${extra[@]}"; then
    stage_count 1
    stage_finish_run "$dir" 1
  else
    stage_count 0
    stage_finish_run "$dir" 0
  fi
}

# --- crash recovery --------------------------------------------------------------------
# run_crash <mode> <kills>: <kills> runs killed with SIGKILL, then one bounded
# verify run. All share one DB and one --expected_values_dir and run with
# --destroy_db_initially=0, as db_crashtest.py does. Returns 0 on PASS, 1 on
# FAIL, 2 if stock failed (excluded).
run_crash() {
  local mode=$1 kills=$2
  local dir=$work/crash-$mode
  mkdir -p "$dir/expected"
  local -a flags
  read -r -a flags <<<"$CRASH_FLAGS"
  flags=("${COMMON[@]}" "${flags[@]}" --db="$dir/db" --expected_values_dir="$dir/expected"
         --destroy_db_initially=0)
  local start=$SECONDS ok=1 i why=
  for ((i = 1; i <= kills; i++)); do
    local log=$dir/killed-$i.txt
    stage_mode_env "$mode" "$dir/rockpool_stats-killed-$i.txt" "$preload"
    stage_write_command "$dir/cmd.txt" "${STAGE_ENV[@]}" "$DB_STRESS" "${flags[@]}" --ops_per_thread=100000000
    # Exec'd through env, so $! is db_stress itself: the kill hits it, and
    # nothing else.
    "${STAGE_ENV[@]}" "$DB_STRESS" "${flags[@]}" --ops_per_thread=100000000 >"$log" 2>&1 &
    STAGE_BG_PID=$!
    sleep "${kill_after[$(((i - 1) % ${#kill_after[@]}))]}"
    if ! kill -0 "$STAGE_BG_PID" 2>/dev/null; then
      { wait "$STAGE_BG_PID" || true; } 2>>"$log"
      STAGE_BG_PID=''
      ok=0 why="run $i exited before the kill"
      cp "$log" "$dir/out.txt"
      break
    fi
    kill -KILL "$STAGE_BG_PID"
    { wait "$STAGE_BG_PID" || true; } 2>>"$log"
    STAGE_BG_PID=''
    # Runs after the first reopen a killed DB and verify it before operating.
    if ((i > 1)) && ! grep -aq 'Crash-recovery verification passed' "$log"; then
      ok=0 why="run $i: no 'Crash-recovery verification passed' before the kill"
      cp "$log" "$dir/out.txt"
      break
    fi
    if ! grep -aq 'Starting database operations' "$log"; then
      ok=0 why="run $i was killed before it operated (raise the kill delay)"
      cp "$log" "$dir/out.txt"
      break
    fi
  done
  if ((ok)); then
    # The verify run: verifies at start (expected state vs. the recovered DB),
    # operates a bounded number of ops, verifies again, exits 0.
    run_fg "$mode" "$dir" $((180 * scale)) "${flags[@]}" \
      --ops_per_thread=$((CRASH_VERIFY_OPS * scale)) || { ok=0; why="verify run failed"; }
    if ((ok)) && ! grep -aq 'Crash-recovery verification passed' "$dir/out.txt"; then
      ok=0 why="verify run: no 'Crash-recovery verification passed'"
    fi
  fi
  # After SIGKILL no exit-time stats exist; the verify run's are the ones
  # that count. The killed runs' (written after flushes) are shown as well.
  local killed_leases=()
  if [[ $mode == pooled ]]; then
    for ((i = 1; i <= kills; i++)); do
      local t
      t=$(stage_rockpool_totals "$dir/rockpool_stats-killed-$i.txt" /nonexistent)
      killed_leases+=("${t%% *}")
    done
  fi
  local extra=("kills=$kills")
  ((${#killed_leases[@]})) && extra+=("killed_run_leases=$(IFS=,; echo "${killed_leases[*]}")")
  if [[ $mode == stock ]] && ((!ok)); then
    # RocksDB's own failure: exclude crash recovery, do not run it pooled.
    local e
    e=$(first_error "$dir/out.txt" 2>/dev/null || true)
    stage_exclude crash $((SECONDS - start)) "$why${e:+: $e}" "$dir"
    return 2
  fi
  [[ -n $why ]] && echo "  $why"
  if report crash "$mode" "$ok" "$((SECONDS - start))" "$dir/rockpool_stats.txt" "$dir/db" "${extra[@]}"; then
    stage_count 1
    stage_finish_run "$dir" 1
    return 0
  fi
  stage_count 0
  stage_finish_run "$dir" 0
  return 1
}

# --- the stage ----------------------------------------------------------------------------
stage_modes "$stock_only"
rows=()
for c in "${CONFIGS[@]}"; do
  if stage_selected "${c%%|*}"; then rows+=("$c"); fi
done
stage_matrix run_config "${rows[@]}"

if stage_selected crash; then
  if run_crash stock "$crash_kills_stock"; then
    ((stock_only)) || run_crash pooled "$crash_kills_pooled" || true
  fi
fi

stage_say "stage took $(stage_elapsed) s"
stage_list_excluded
stage_close_workdir "$work"
stage_summary
# Nothing passed (e.g. every configuration excluded because the binary is
# broken) is a failure too, not a vacuous success.
((STAGE_FAILED == 0 && STAGE_PASSED > 0))
