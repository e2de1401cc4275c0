# shellcheck shell=bash
# Plumbing shared by the stage scripts .ci/run calls through plain_stage
# (tests/db_stress/run.sh, tests/myrocks/run.sh): the stage's name on every
# line, pass/fail counts and the summary line `<stage>: N passed, M failed`
# (printed last; plain_stage parses it), timing, the modes every configuration
# runs in (stock first, then with rockpool) and the loop over configurations x
# modes, child processes run with a timeout into a log, run directories kept
# when they failed, and the totals of rockpool's report lines.
#
# Sourced, not run:
#   source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/stage_lib.sh"
#   stage_init <name>
# Safe under `set -euo pipefail` (no function ends on a failing test).

# --- name, counts, summary, timing ----------------------------------------------
stage_init() {  # <name>
  STAGE=$1
  STAGE_T0=$SECONDS
  STAGE_PASSED=0
  STAGE_FAILED=0
}
stage_say() { echo "$STAGE: $*"; }
# A wrong command line or a missing input: says so on stderr, exits 2.
stage_usage_error() { echo "$STAGE: $*" >&2; exit 2; }
# A setup step failed: one failed check, the summary line, exit 1.
stage_setup_fail() {
  stage_say "setup FAIL $*"
  stage_say "$STAGE_PASSED passed, $((STAGE_FAILED + 1)) failed"
  exit 1
}
stage_elapsed() { echo $((SECONDS - STAGE_T0)); }  # seconds since stage_init
stage_count() {  # <ok 0|1>
  if (($1)); then STAGE_PASSED=$((STAGE_PASSED + 1)); else STAGE_FAILED=$((STAGE_FAILED + 1)); fi
}
# stage_check <ok 0|1> <what> [detail...]: counts it and prints
# "<stage>: <what> PASS|FAIL <detail>".
stage_check() {
  local ok=$1 what=$2
  shift 2
  stage_count "$ok"
  if ((ok)); then stage_say "$what PASS $*"; else stage_say "$what FAIL $*"; fi
}
stage_summary() { stage_say "$STAGE_PASSED passed, $STAGE_FAILED failed"; }
# The leading comment block of a script (its usage), without the #! line.
stage_usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1' "$1"; }

# --- modes and the configurations x modes loop -----------------------------------
# stock:   no rockpool;
# measure: rockpool loaded, contexts created and freed where stock does (the
#          codec libraries' bytes counted);
# pooled:  rockpool pooling, as CI runs it.
STAGE_POOL_OPTIONS="max_idle_per_key=8;idle_seconds=60"
STAGE_MEASURE_OPTIONS="measure_stock=true"
# stage_modes <stock only 0|1> [<measure 0|1>]: STAGE_MODES=(stock [measure] pooled).
stage_modes() {
  STAGE_MODES=(stock)
  if (($1)); then return 0; fi
  if ((${2:-0})); then STAGE_MODES+=(measure); fi
  STAGE_MODES+=(pooled)
}
# stage_matrix <run> <config...>: calls `<run> <config> <mode>` for each
# config, in each mode of STAGE_MODES in order (stock first). A run that sets
# STAGE_SKIP_MODES=1 (stock failed: its configuration is excluded) ends its
# configuration's modes.
stage_matrix() {
  local run=$1 config mode
  shift
  for config in "$@"; do
    for mode in "${STAGE_MODES[@]}"; do
      STAGE_SKIP_MODES=0
      "$run" "$config" "$mode"
      if ((STAGE_SKIP_MODES)); then break; fi
    done
  done
}
# stage_mode_env <mode> <stats file> <rockpool object> [<preload of every mode>]:
# STAGE_ENV, the `env` prefix of a process in that mode. stock: nothing of
# rockpool's (none leaks in from the caller's environment), only <preload of
# every mode> if given; measure and pooled: that and the rockpool object
# preloaded, ROCKPOOL_OPTIONS for the mode, totals written to <stats file>.
stage_mode_env() {
  local always=${4:-}
  case $1 in
    stock)
      STAGE_ENV=(env -u LD_PRELOAD -u ROCKPOOL_OPTIONS -u ROCKPOOL_STATS)
      if [[ -n $always ]]; then STAGE_ENV+=(LD_PRELOAD="$always"); fi
      ;;
    measure)
      STAGE_ENV=(env LD_PRELOAD="${always:+$always:}$3" "ROCKPOOL_OPTIONS=$STAGE_MEASURE_OPTIONS"
                 ROCKPOOL_STATS="$2") ;;
    pooled)
      STAGE_ENV=(env LD_PRELOAD="${always:+$always:}$3" "ROCKPOOL_OPTIONS=$STAGE_POOL_OPTIONS"
                 ROCKPOOL_STATS="$2") ;;
  esac
}
# stage_exclude <config> <seconds> <why> <dir>: the configuration failed stock
# (RocksDB's own failure): reported now and by stage_list_excluded, not
# counted, its later modes not run (STAGE_SKIP_MODES=1), its run directory
# removed (unless STAGE_KEEP_ALL=1).
STAGE_EXCLUDED=()
stage_exclude() {
  stage_say "$1 stock EXCLUDED $2s (stock failed: $3); pooled not run"
  echo "  command: $(cat "$4/cmd.txt")"
  STAGE_EXCLUDED+=("$1 (stock failed: $3)")
  ((STAGE_KEEP_ALL)) || rm -rf "$4"
  STAGE_SKIP_MODES=1
}
stage_list_excluded() {
  local e
  for e in "${STAGE_EXCLUDED[@]}"; do
    stage_say "excluded: $e"
  done
}
# stage_selected <name>: true if STAGE_ONLY (a comma-separated list) is empty
# or names it.
stage_selected() {
  [[ -z ${STAGE_ONLY:-} ]] && return 0
  [[ ",$STAGE_ONLY," == *",$1,"* ]]
}

# --- child processes --------------------------------------------------------------
# The processes the stage started and has not reaped: the `timeout` of a
# foreground run (TERM: it forwards the signal to its command) and one
# background process (KILL). stage_stop_children, in the EXIT trap, leaves
# nothing running after an interrupted stage (CI timeout, ^C: timeout runs in
# its own process group, so ^C does not reach it).
STAGE_FG_PID=''
STAGE_BG_PID=''
stage_stop_children() {
  [[ -n $STAGE_FG_PID ]] && kill -TERM "$STAGE_FG_PID" 2>/dev/null
  [[ -n $STAGE_BG_PID ]] && kill -KILL "$STAGE_BG_PID" 2>/dev/null
  return 0
}

# stage_write_command <file> <command...>: the command, shell-quoted, to rerun it.
stage_write_command() {
  local file=$1
  shift
  printf '%q ' "$@" >"$file"
  echo >>"$file"
}

# stage_run_logged <log> <timeout s> <command...>: runs the command to
# completion, its output in <log>; returns its exit status (124: timed out,
# noted in the log).
stage_run_logged() {
  local log=$1 limit=$2 rc=0
  shift 2
  # In the background (so the trap can stop it) and waited for inside a group
  # whose stderr is the log: bash's "Aborted"/"Killed" notice for a child that
  # died of a signal lands there, not in the stage output.
  {
    timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1 &
    STAGE_FG_PID=$!
    wait "$STAGE_FG_PID" || rc=$?
    STAGE_FG_PID=''
  } 2>>"$log"
  ((rc == 124)) && echo "$STAGE: timed out after ${limit}s" >>"$log"
  return "$rc"
}

# --- run directories --------------------------------------------------------------
# A run's directory holds cmd.txt (stage_write_command) and out.txt (its
# output). stage_finish_run <dir> <passed 0|1> removes a passed run's
# directory (unless STAGE_KEEP_ALL=1), keeps a failed one's (listed in
# STAGE_KEPT) and prints where it is, its command, its first error (the
# function STAGE_FIRST_ERROR names, given out.txt, if set) and its last lines.
STAGE_KEEP_ALL=0
STAGE_KEPT=()
STAGE_FIRST_ERROR=''
stage_finish_run() {
  if (($2)); then
    ((STAGE_KEEP_ALL)) || rm -rf "$1"
  else
    STAGE_KEPT+=("$1")
    echo "  kept $1"
    echo "  command: $(cat "$1/cmd.txt" 2>/dev/null)"
    local e=''
    [[ -n $STAGE_FIRST_ERROR ]] && e=$("$STAGE_FIRST_ERROR" "$1/out.txt" 2>/dev/null || true)
    [[ -n $e ]] && echo "  error: $e"
    echo "  last lines:"
    tr '\r' '\n' <"$1/out.txt" 2>/dev/null | grep -av '^\.\.\. finished' | tail -n 8 | sed 's/^/    /'
  fi
}

# stage_close_workdir <dir>: at the end, the stage's work directory is kept
# with --keep (STAGE_KEEP_ALL=1) and when a run failed, else removed.
stage_close_workdir() {
  if ((STAGE_KEEP_ALL)); then
    stage_say "every run kept under $1 (--keep)"
  elif ((STAGE_FAILED == 0)); then
    rm -rf "$1"
  else
    stage_say "failed runs kept under $1"
  fi
}

# --- rockpool's report lines ------------------------------------------------------
# (`rockpool report: ... | total: leases=N created=N reused=N lib_bytes=N ...`,
# written to the ROCKPOOL_STATS file and to a DB's LOG.)

# stage_rockpool_totals <stats file> <db dir>: prints "leases created reused
# lib_bytes in_use" from the stats file's last report line, else from the
# newest LOG's last report line, else "0 0 0 0 -".
stage_rockpool_totals() {
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

# stage_report_field <file> <segment> <key>: the value of key= inside the
# "| <segment>: ..." part of the file's last report line; segment "pools" is
# the part listing the pools (zstd_c=..., deflate=...).
stage_report_field() {
  grep 'rockpool report:' "$1" 2>/dev/null | tail -1 | tr '|' '\n' \
    | awk -v seg="$2" -v key="$3" '
        { sub(/^ +/, "") }
        seg == "pools" && $0 ~ /(zstd_c|deflate)=/ { for (i = 1; i <= NF; i++) if (index($i, key "=") == 1) { print substr($i, length(key) + 2); exit } }
        index($0, seg ":") == 1 { for (i = 1; i <= NF; i++) if (index($i, key "=") == 1) { print substr($i, length(key) + 2); exit } }'
}
