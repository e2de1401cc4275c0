#!/usr/bin/env bash
# Runs RocksDB 7.8.3's own db_stress against rockpool's legacy face: every
# configuration below first stock (no preload), then pooled (the preload
# object interposing zstd/zlib context creation). A configuration that fails
# stock is excluded (reported, not counted as a pass): its failure is
# RocksDB's, and a pooled run would prove nothing.
#
#   tests/db_stress/run.sh              CI: every configuration, bounded; 26
#                                       runs, 4.5-7 min on a 2-core VM (load
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
#                     bazel-bin/rocksdb_plugin/librockpool_preload.so; copied
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
stage_start=$SECONDS

scale=1
long=0
only=
stock_only=0
list_only=0
keep_all=0
while (($#)); do
  case "$1" in
    --long) long=1; scale=10; shift ;;
    --scale) scale=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --stock) stock_only=1; shift ;;
    --list) list_only=1; shift ;;
    --keep) keep_all=1; shift ;;
    -h|--help) sed -n '2,44p' "$0"; exit 0 ;;
    *) echo "db_stress: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $scale =~ ^[1-9][0-9]*$ ]] || { echo "db_stress: --scale wants a positive integer" >&2; exit 2; }

# --- the configurations ----------------------------------------------------------
# Flags every run shares. Each one is here for a reason:
COMMON=(
  --threads=4
  # Small key space: the final verification reads every key of every CF.
  --max_key=100000
  # db_stress defaults to 10 column families and 10 reopens; configurations
  # that want them ask.
  --column_families=1
  --reopen=0
  # > 0 crashes db_stress 7.8.3 itself, stock too; db_crashtest.py keeps 0.
  --clear_column_family_one_in=0
  # Defaults to 1000 (read faults on everywhere); only the faults
  # configuration injects, so a failure elsewhere is never a fault's.
  --read_fault_one_in=0
  # Small memtables and files, a small L1: many flushes and compactions, i.e.
  # many table builders (one ZSTD_CCtx each) and deflate/inflate streams.
  --write_buffer_size=262144
  --target_file_size_base=262144
  --max_bytes_for_level_base=1048576
  # Values of 32..96 bytes (db_crashtest.py's multiplier), compressible.
  --value_size_mult=32
  # A small block cache: reads go to the files, through decompression.
  --cache_size=1048576
  # Checksums on every read; every new SST re-read after it is written.
  --verify_checksum=1
  --paranoid_file_checks=1
)

# name|ops per thread (scaled)|flags. The op counts hold each run to roughly
# 5-15 s here; BlobDB runs fewer (every iterator step reads and decompresses a
# blob, so they are the slowest per op).
CONFIGS=(
  "zlib|50000|--compression_type=zlib"
  "zstd_dict|50000|--compression_type=zstd --compression_max_dict_bytes=16384 --compression_zstd_max_train_bytes=65536"
  "zstd_zlib_bottom|50000|--compression_type=zstd --bottommost_compression_type=zlib"
  # db_crashtest.py 7.8.3 leaves this at 1 ("the feature is not stable"); it
  # is kept while it passes stock (and excluded by the rule below if not).
  "parallel|50000|--compression_type=zstd --compression_parallel_threads=4"
  "cf4|40000|--compression_type=zlib --column_families=4"
  "reopen|50000|--compression_type=zstd --bottommost_compression_type=zlib --reopen=5"
  "blob_zstd|20000|--compression_type=zstd --enable_blob_files=1 --min_blob_size=32 --blob_file_size=1048576 --blob_compression_type=zstd --enable_blob_garbage_collection=1 --blob_garbage_collection_age_cutoff=0.5"
  "blob_zlib|20000|--compression_type=zlib --enable_blob_files=1 --min_blob_size=32 --blob_file_size=1048576 --blob_compression_type=zlib --enable_blob_garbage_collection=1 --blob_garbage_collection_age_cutoff=0.5"
  # A block cache smaller than the working set, so blocks go to and come back
  # from the compressed secondary cache (one codec context per entry in
  # 7.8.3). The URI is parsed by SecondaryCache::CreateFromString (cache.cc).
  # --statistics=1 prints the secondary cache's hit count (sec_cache_hits=N),
  # the proof that it was used.
  "secondary_cache|40000|--compression_type=zstd --cache_size=262144 --statistics=1 --secondary_cache_uri=compressed_secondary_cache://capacity=8388608;compression_type=kZSTD"
  "secondary_cache_zlib|40000|--compression_type=zlib --cache_size=262144 --statistics=1 --secondary_cache_uri=compressed_secondary_cache://capacity=8388608;compression_type=kZlibCompression"
  # Read faults (in Get/MultiGet, which alone arm them in 7.8.3; more reads
  # and a smaller cache so they reach the files) and open-time read, write and
  # metadata-write faults (armed only while DB::Open runs on a reopen; a failed
  # open is retried). With the default --seed the open faults' random sequence
  # (reset to the seed on every reopen) never fires at these rates; --seed=1
  # does: about one failed open per reopen, counted as faults=N.
  "faults|40000|--compression_type=zlib --bottommost_compression_type=zstd --cache_size=262144 --readpercent=40 --prefixpercent=0 --writepercent=35 --delpercent=15 --iterpercent=10 --read_fault_one_in=8 --reopen=5 --seed=1 --open_read_fault_one_in=8 --open_write_fault_one_in=4 --open_metadata_write_fault_one_in=4"
  # Write faults while running: in 7.8.3 a retryable write error puts the DB in
  # background-error recovery, the next foreground write returns "Result
  # incomplete" and db_stress terminates ("put or merge error"), stock too;
  # db_crashtest.py 7.8.3 never sets it. Kept so the exclusion shows in every
  # run (it fails within a second or two).
  "write_faults|20000|--compression_type=zstd --write_fault_one_in=8"
)
# Crash recovery, as db_crashtest.py's blackbox mode does it: runs with
# --expected_values_dir killed by SIGKILL mid-run; each next run verifies the
# reopened DB against the expected state before it operates; a final bounded
# run verifies at start and at end. Stock: 1 kill; pooled: 3 kills.
CRASH_FLAGS="--compression_type=zstd --bottommost_compression_type=zlib"
CRASH_VERIFY_OPS=20000
crash_kills_stock=1
crash_kills_pooled=3
kill_after=(6 8 10)  # seconds; varied so kills land in different phases
if ((long)); then
  crash_kills_stock=3
  crash_kills_pooled=10
  kill_after=(30)
fi

reopen_scale=1
((long)) && reopen_scale=4

selected() {  # <name>
  [[ -z $only ]] && return 0
  [[ ",$only," == *",$1,"* ]]
}

if ((list_only)); then
  printf 'common: %s\n' "${COMMON[*]}"
  for c in "${CONFIGS[@]}"; do
    IFS='|' read -r name ops flags <<<"$c"
    if [[ $flags =~ --reopen=([0-9]+) ]]; then
      flags=${flags/${BASH_REMATCH[0]}/--reopen=$((BASH_REMATCH[1] * reopen_scale))}
    fi
    printf '%s: --ops_per_thread=%s %s\n' "$name" "$((ops * scale))" "$flags"
  done
  printf 'crash: %s (killed runs: --ops_per_thread=100000000; verify: --ops_per_thread=%s)\n' \
    "$CRASH_FLAGS" "$((CRASH_VERIFY_OPS * scale))"
  exit 0
fi

# --- inputs -------------------------------------------------------------------------
if [[ -z ${DB_STRESS:-} ]]; then
  DB_STRESS=$(bash "$here/build.sh" | tail -n 1)
fi
[[ -x $DB_STRESS ]] || { echo "db_stress: $DB_STRESS is not executable" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/rockpool-db-stress.XXXXXX")
preload=
if ((!stock_only)); then
  [[ -n ${ROCKPOOL_PRELOAD:-} ]] ||
    { echo "db_stress: set ROCKPOOL_PRELOAD to the preload object (or pass --stock)" >&2; exit 2; }
  [[ -f $ROCKPOOL_PRELOAD ]] || { echo "db_stress: $ROCKPOOL_PRELOAD not found" >&2; exit 2; }
  preload=$work/$(basename "$ROCKPOOL_PRELOAD")
  cp "$ROCKPOOL_PRELOAD" "$preload"
fi
echo "db_stress: binary $DB_STRESS"
echo "db_stress: preload ${ROCKPOOL_PRELOAD:-none} (sha256 $( [[ -n $preload ]] && sha256sum "$preload" | cut -c1-16 || echo -))"
echo "db_stress: work dir $work; scale $scale"

passed=0
failed=0
excluded=()
kept=()
PRE=()

# The processes this script started and has not reaped: the `timeout` of a
# foreground run (TERM: it forwards the signal to db_stress) and a crash run's
# db_stress (KILL). An interrupted stage (CI timeout, ^C; timeout runs in its
# own process group, so ^C does not reach it) leaves nothing running.
fg_pid=''
bg_pid=''
stop_children() {
  [[ -n $fg_pid ]] && kill -TERM "$fg_pid" 2>/dev/null
  [[ -n $bg_pid ]] && kill -KILL "$bg_pid" 2>/dev/null
  return 0
}
trap stop_children EXIT
# fd 3: the stage's stderr, also while a run's group has stderr on its log.
exec 3>&2
trap 'echo "db_stress: interrupted; work dir $work kept" >&3; exit 130' INT TERM

# --- one db_stress process -----------------------------------------------------------
# mode_env <stock|pooled> <stats file>: sets PRE, the environment prefix.
# ROCKPOOL_OPTIONS switches pooling on at load (db_stress clears the DB's
# listeners, so an OPTIONS-file listener never reaches the DB there).
mode_env() {
  if [[ $1 == pooled ]]; then
    PRE=(env LD_PRELOAD="$preload" "ROCKPOOL_OPTIONS=max_idle_per_key=8;idle_seconds=60"
         ROCKPOOL_STATS="$2")
  else
    # Nothing of rockpool's may leak in from the caller's environment.
    PRE=(env -u LD_PRELOAD -u ROCKPOOL_OPTIONS -u ROCKPOOL_STATS)
  fi
}

# totals <stats file> <db dir>: prints "leases created reused lib_bytes in_use"
# from the stats file's last report line, else from the newest LOG's last
# report line, else "0 0 0 0 -".
totals() {
  local line='' f
  [[ -s $1 ]] && line=$(grep -h 'rockpool report:' "$1" | tail -n 1 || true)
  if [[ -z $line && -d $2 ]]; then
    # LOG is the newest; LOG.old.<microseconds> sort by age.
    for f in "$2/LOG" $(ls -r "$2"/LOG.old.* 2>/dev/null); do
      [[ -f $f ]] || continue
      line=$(grep -h 'rockpool report:' "$f" | tail -n 1 || true)
      [[ -n $line ]] && break
    done
  fi
  local t u
  t=$(sed -nE 's/.*\| total: leases=([0-9]+) created=([0-9]+) reused=([0-9]+) lib_bytes=([0-9]+).*/\1 \2 \3 \4/p' <<<"$line")
  # Leases not returned when the line was written (at exit: should be 0).
  u=$(sed -nE 's/.* in_use=([0-9]+).*/\1/p' <<<"$line")
  echo "${t:-0 0 0 0} ${u:--}"
}

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
    read -r leases created reused lib_bytes in_use < <(totals "$stats" "$db")
    set -- "$@" "in_use=$in_use"
    if ((ok)) && ! ((leases > 0 && reused > 0)); then
      ok=0
      why=" (no pooling: leases=$leases reused=$reused)"
    fi
  fi
  local result=FAIL
  ((ok)) && result=PASS
  echo "db_stress: $config $mode $result ${secs}s leases=$leases created=$created reused=$reused lib_bytes=$lib_bytes${*:+ $*}$why"
  ((ok))
}

# run_fg <mode> <dir> <timeout s> <flags...>: runs db_stress to completion;
# its output goes to <dir>/out.txt, its command to <dir>/cmd.txt.
run_fg() {
  local mode=$1 dir=$2 limit=$3
  shift 3
  mode_env "$mode" "$dir/rockpool_stats.txt"
  printf '%q ' "${PRE[@]}" "$DB_STRESS" "$@" >"$dir/cmd.txt"
  echo >>"$dir/cmd.txt"
  local rc=0
  # In the background (so the trap can stop it) and waited for inside a group
  # whose stderr is the log: bash's "Aborted"/"Killed" notice for a child that
  # died of a signal lands there, not in the stage output.
  {
    timeout --kill-after=10 "$limit" "${PRE[@]}" "$DB_STRESS" "$@" >"$dir/out.txt" 2>&1 &
    fg_pid=$!
    wait "$fg_pid" || rc=$?
    fg_pid=''
  } 2>>"$dir/out.txt"
  ((rc == 124)) && echo "db_stress: timed out after ${limit}s" >>"$dir/out.txt"
  return "$rc"
}

# finish_run <dir> <passed 0|1>: removes a passed run's directory, keeps a
# failed one's (and prints where it is, its command and its first error).
finish_run() {
  if (($2)); then
    ((keep_all)) || rm -rf "$1"
  else
    kept+=("$1")
    echo "  kept $1"
    echo "  command: $(cat "$1/cmd.txt" 2>/dev/null)"
    local e
    e=$(first_error "$1/out.txt" 2>/dev/null || true)
    [[ -n $e ]] && echo "  error: $e"
    echo "  last lines:"
    tr '\r' '\n' <"$1/out.txt" 2>/dev/null | grep -av '^\.\.\. finished' | tail -n 8 | sed 's/^/    /'
  fi
}

# open_faults <db dir>: how many DB::Open attempts an injected fault failed.
open_faults() {
  cat "$1"/LOG "$1"/LOG.old.* 2>/dev/null | grep -c 'DB::Open() failed: IO error: Injected' || true
}

# --- the ordinary configurations -------------------------------------------------------
run_config() {  # <name> <ops> <flags string>
  local name=$1 ops=$2 flags_s=$3
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
  local modes=(stock)
  ((stock_only)) || modes+=(pooled)
  local mode
  for mode in "${modes[@]}"; do
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
      echo "db_stress: $name stock EXCLUDED $((SECONDS - start))s (stock failed: ${e:-exit status non-zero}); pooled not run"
      echo "  command: $(cat "$dir/cmd.txt")"
      excluded+=("$name (stock failed: ${e:-exit status non-zero})")
      ((keep_all)) || rm -rf "$dir"
      return 0
    fi
    if report "$name" "$mode" "$ok" "$((SECONDS - start))" "$dir/rockpool_stats.txt" "$dir/db" "${extra[@]}"; then
      passed=$((passed + 1))
      finish_run "$dir" 1
    else
      failed=$((failed + 1))
      finish_run "$dir" 0
    fi
  done
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
    mode_env "$mode" "$dir/rockpool_stats-killed-$i.txt"
    printf '%q ' "${PRE[@]}" "$DB_STRESS" "${flags[@]}" --ops_per_thread=100000000 >"$dir/cmd.txt"
    echo >>"$dir/cmd.txt"
    # Exec'd through env, so $! is db_stress itself: the kill hits it, and
    # nothing else.
    "${PRE[@]}" "$DB_STRESS" "${flags[@]}" --ops_per_thread=100000000 >"$log" 2>&1 &
    bg_pid=$!
    sleep "${kill_after[$(((i - 1) % ${#kill_after[@]}))]}"
    if ! kill -0 "$bg_pid" 2>/dev/null; then
      { wait "$bg_pid" || true; } 2>>"$log"
      bg_pid=''
      ok=0 why="run $i exited before the kill"
      cp "$log" "$dir/out.txt"
      break
    fi
    kill -KILL "$bg_pid"
    { wait "$bg_pid" || true; } 2>>"$log"
    bg_pid=''
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
      t=$(totals "$dir/rockpool_stats-killed-$i.txt" /nonexistent)
      killed_leases+=("${t%% *}")
    done
  fi
  local extra=("kills=$kills")
  ((${#killed_leases[@]})) && extra+=("killed_run_leases=$(IFS=,; echo "${killed_leases[*]}")")
  if [[ $mode == stock ]] && ((!ok)); then
    # RocksDB's own failure: exclude crash recovery, do not run it pooled.
    local e
    e=$(first_error "$dir/out.txt" 2>/dev/null || true)
    echo "db_stress: crash stock EXCLUDED $((SECONDS - start))s (stock failed: $why${e:+: $e}); pooled not run"
    echo "  command: $(cat "$dir/cmd.txt")"
    excluded+=("crash (stock failed: $why${e:+: $e})")
    ((keep_all)) || rm -rf "$dir"
    return 2
  fi
  [[ -n $why ]] && echo "  $why"
  if report crash "$mode" "$ok" "$((SECONDS - start))" "$dir/rockpool_stats.txt" "$dir/db" "${extra[@]}"; then
    passed=$((passed + 1))
    finish_run "$dir" 1
    return 0
  fi
  failed=$((failed + 1))
  finish_run "$dir" 0
  return 1
}

# --- the stage ----------------------------------------------------------------------------
for c in "${CONFIGS[@]}"; do
  IFS='|' read -r name ops flags <<<"$c"
  selected "$name" || continue
  run_config "$name" "$ops" "$flags"
done

if selected crash; then
  if run_crash stock "$crash_kills_stock"; then
    ((stock_only)) || run_crash pooled "$crash_kills_pooled" || true
  fi
fi

echo "db_stress: stage took $((SECONDS - stage_start)) s"
for e in "${excluded[@]}"; do
  echo "db_stress: excluded: $e"
done
if ((keep_all)); then
  echo "db_stress: every run kept under $work (--keep)"
elif ((failed == 0)); then
  rm -rf "$work"
else
  echo "db_stress: failed runs kept under $work"
fi
echo "db_stress: $passed passed, $failed failed"
# Nothing passed (e.g. every configuration excluded because the binary is
# broken) is a failure too, not a vacuous success.
((failed == 0 && passed > 0))
