#!/usr/bin/env bash
# End-to-end check of rockpool's environment-configured interposer
# (librockpool_interpose.so, which carries no RocksDB) under Debian's MariaDB
# MyRocks, whose ha_rocksdb.so has its own RocksDB built in and imports the
# zstd/zlib/lz4 context functions from the system libraries.
#
# Packages needed (installed by `tools/setup.sh --stage=myrocks` when missing
# and run as root):
#   mariadb-server mariadb-plugin-rocksdb sysbench
# (g++ too, only when no built malloc counter is found: it is then compiled
# from tools/process/malloc_counter*.)
#
# For each codec (zlib, zstd, lz4hc: the column family's compression) and each mode
#   stock    no rockpool (only the malloc counter preloaded)
#   measure  rockpool preloaded with ROCKPOOL_OPTIONS=measure_stock=true:
#            contexts created/freed where stock does, codec-library bytes counted
#   pooled   rockpool preloaded with ROCKPOOL_OPTIONS=max_idle_per_key=8;idle_seconds=60
# it starts its own mariadbd in a scratch dir (socket only, no TCP), loads a
# deterministic table from the SEQUENCE engine, updates/deletes part of it,
# runs sysbench oltp_read_write prepare+run, compacts, checks the table against
# the SEQUENCE generator and the codec of every SST file, stops the server
# cleanly, restarts it in the same mode and reads everything back.
# Prints one line per check `myrocks: <codec> <mode> <check> PASS|FAIL ...`,
# a results table, and `myrocks: N passed, M failed`; exits non-zero on any
# failure.
#
# Environment:
#   ROCKPOOL_INTERPOSE   path of librockpool_interpose.so (required unless --stock-only)
#   MALLOC_COUNTER       path of libmalloc_counter.so (default: bazel-bin's, else compiled)
#   ROCKPOOL_STATS_SECONDS  passed through to the pooled/measure servers if set
#   SST_REPLAY           sst_replay binary (default: bazel-bin's) for the
#                        stock-pattern check: per codec, a measure_stock
#                        server that only flushes, then sst_replay's blocks
#                        mode on its data dir (pattern 6.29, detected from
#                        OPTIONS) must count the contexts MyRocks created
# Options:
#   --long         bigger run (1M-row table, 4 sysbench tables x 100k rows,
#                  4 threads, 100k transactions capped at 300 s; about 5 minutes
#                  per codec x mode, ~30 minutes in all)
#   --stock-only   skip the rockpool modes (no ROCKPOOL_INTERPOSE needed)
#   --no-measure   skip the measure_stock mode
#   --codecs=LIST  comma-separated subset of zlib,zstd,lz4hc (default all three)
#   --keep         keep the scratch dir (its path is printed)
#   --pattern-only only the stock-pattern check (pattern_check.sh; no codec x mode matrix)
# Default run: about 3.5 minutes on 2 cores for zlib and zstd, plus 3.5 for
# lz4hc (209 s at load 5).
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SCRIPT_DIR/../.." && pwd)"
source "$REPO/tests/stage_lib.sh"
stage_init myrocks

# ---------------------------------------------------------------- packages
# Installs the stage's Debian packages if missing (apt-get, as root).
install_packages() {  # mariadb-server mariadb-plugin-rocksdb sysbench
  bash "$REPO/tools/setup.sh" --stage=myrocks || die "tools/setup.sh --stage=myrocks failed"
}
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
# Nothing of the caller's preload or rockpool settings leaks into the clients.
unset LD_PRELOAD ROCKPOOL_OPTIONS ROCKPOOL_STATS ROCKPOOL_VERBOSE MALLOC_COUNTER_OUT

LONG=0; STOCK_ONLY=0; MEASURE=1; KEEP=0; PATTERN_ONLY=0; CODECS="zlib,zstd,lz4hc"
for a in "$@"; do
  case "$a" in
    --long) LONG=1 ;;
    --stock-only) STOCK_ONLY=1 ;;
    --no-measure) MEASURE=0 ;;
    --keep) KEEP=1 ;;
    --pattern-only) PATTERN_ONLY=1 ;;
    --codecs=*) CODECS="${a#--codecs=}" ;;
    -h|--help) stage_usage "$0"; exit 0 ;;
    *) stage_usage_error "unknown option $a" ;;
  esac
done

IFS=',' read -r -a CODEC_LIST <<<"$CODECS"
for codec in "${CODEC_LIST[@]}"; do
  case "$codec" in zlib|zstd|lz4hc) ;; *) stage_usage_error "unknown codec $codec" ;; esac
done

if [ "$LONG" = 1 ]; then
  ROWS=1000000; SB_TABLES=4; SB_SIZE=100000; SB_THREADS=4; SB_EVENTS=100000; SB_TIME=300
else
  ROWS=200000; SB_TABLES=2; SB_SIZE=20000; SB_THREADS=2; SB_EVENTS=12000; SB_TIME=40
fi
CHUNK=100000           # rows per INSERT (MyRocks caps row locks per transaction)
BLOCK_CACHE=8M         # small, so that reads decompress blocks
# Small memtables (flushes during the load) and small SST files: with big files
# an SST's index block outgrows a block-cache shard, and then every point lookup
# re-reads and decompresses the whole index block (the --long load crawled).
CF_EXTRA="write_buffer_size=4m;target_file_size_base=8m"

check() {  # check <codec> <mode> <name> <ok:0|1> [detail...]
  local codec=$1 mode=$2 name=$3 ok=$4; shift 4
  stage_check "$ok" "$codec $mode $name" "$@"
}
die() { stage_setup_fail "$@"; }

install_packages
for b in mariadbd mariadb-install-db mariadb mariadb-admin sysbench; do
  command -v "$b" >/dev/null || die "$b not found"
done

# ---------------------------------------------------------------- scratch + cleanup
WORK="$(mktemp -d /tmp/myrocks.XXXXXX)" || die "mktemp"
SERVER_DIRS=()
cleanup() {
  local d pid
  for d in "${SERVER_DIRS[@]}"; do
    for pid in $(cat "$d"/pid.* 2>/dev/null); do
      if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = mariadbd ]; then
        kill -TERM "$pid" 2>/dev/null
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null
      fi
    done
  done
  wait 2>/dev/null
  [ "$KEEP" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
[ "$KEEP" = 1 ] && stage_say "scratch dir $WORK (kept)"
trap 'stage_say "interrupted"; exit 130' INT TERM

# ---------------------------------------------------------------- preloads
if [ -z "${MALLOC_COUNTER:-}" ]; then
  if [ -f "$REPO/bazel-bin/tools/process/libmalloc_counter.so" ]; then
    MALLOC_COUNTER="$REPO/bazel-bin/tools/process/libmalloc_counter.so"
  else
    # The sources of //tools/process:libmalloc_counter.so, compiled as Bazel does.
    MALLOC_COUNTER="$WORK/libmalloc_counter.so"
    src="$REPO/tools/process"
    { gcc -c -fPIC -O2 -I"$REPO" -o "$WORK/mc.o" "$src/malloc_counter.c" &&
      gcc -c -fPIC -O2 -I"$REPO" -o "$WORK/mc_report.o" "$src/malloc_counter_exit_report.c" &&
      g++ -c -fPIC -O2 -std=c++20 -I"$REPO" -o "$WORK/mc_new.o" "$src/malloc_counter_new.cc" &&
      g++ -shared -o "$MALLOC_COUNTER" "$WORK/mc.o" "$WORK/mc_report.o" "$WORK/mc_new.o" -ldl; } \
      || die "could not compile the malloc counter"
  fi
fi
[ -f "$MALLOC_COUNTER" ] || die "MALLOC_COUNTER=$MALLOC_COUNTER not found"
stage_modes "$STOCK_ONLY" "$MEASURE"
if [ "$STOCK_ONLY" = 0 ]; then
  [ -n "${ROCKPOOL_INTERPOSE:-}" ] || die "ROCKPOOL_INTERPOSE is not set (or use --stock-only)"
  [ -f "$ROCKPOOL_INTERPOSE" ] || die "ROCKPOOL_INTERPOSE=$ROCKPOOL_INTERPOSE not found"
fi
# Private copies: a rebuild elsewhere cannot swap an object under a running server.
cp "$MALLOC_COUNTER" "$WORK/counter.so" || die "cannot copy $MALLOC_COUNTER"
MALLOC_COUNTER_SRC="$MALLOC_COUNTER"; MALLOC_COUNTER="$WORK/counter.so"
if [ "$STOCK_ONLY" = 0 ]; then
  cp "$ROCKPOOL_INTERPOSE" "$WORK/librockpool_interpose.so" || die "cannot copy $ROCKPOOL_INTERPOSE"
  ROCKPOOL_INTERPOSE_SRC="$ROCKPOOL_INTERPOSE"; ROCKPOOL_INTERPOSE="$WORK/librockpool_interpose.so"
fi
stage_say "rows=$ROWS sysbench=${SB_TABLES}x${SB_SIZE} threads=$SB_THREADS events=$SB_EVENTS (cap ${SB_TIME}s)" \
     "modes=[${STAGE_MODES[*]}] codecs=[$CODECS] counter=$MALLOC_COUNTER_SRC interpose=${ROCKPOOL_INTERPOSE_SRC:-none}"

# ---------------------------------------------------------------- servers
TEMPLATE="$WORK/template"
mariadb-install-db --no-defaults --datadir="$TEMPLATE" --auth-root-authentication-method=normal \
  >"$WORK/install-db.log" 2>&1 || { tail -20 "$WORK/install-db.log"; die "mariadb-install-db failed"; }

source "$SCRIPT_DIR/mariadb.sh"

# ---------------------------------------------------------------- one codec x mode
declare -A R   # results: R[codec,mode,field]

run_case() {
  local codec=$1 mode=$2 dir="$WORK/$1-$2" ok s1 s2 h ref tps codecs want
  mkdir -p "$dir"; SERVER_DIRS+=("$dir")
  cp -a "$TEMPLATE" "$dir/data"
  local t_start=$SECONDS

  # ---- life 1: load, sysbench, compaction
  if start_server "$dir" "$codec" "$mode" 1; then check "$codec" "$mode" start 1
  else check "$codec" "$mode" start 0 "(server did not come up)"; show_failure "$dir" 1; stop_server "$dir" 1; return; fi

  if [ "$mode" != stock ]; then
    # start_server sets ROCKPOOL_VERBOSE=1 (rockpool is quiet otherwise): mariadbd's
    # activation line, printed at load with its own pid, before it opens its error log.
    local line pid
    line=$(grep -h -m1 'rockpool\[[0-9]*\]: active from ROCKPOOL_OPTIONS' "$dir/stdout.1" "$dir/err.1.log" 2>/dev/null | head -1)
    pid=$(cat "$dir/pid.1" 2>/dev/null)
    [ -n "$line" ] && [ -n "$pid" ] && [[ $line == "rockpool[$pid]: "* ]] && ok=1 || ok=0
    check "$codec" "$mode" active "$ok" "$line (mariadbd pid ${pid:-?})"
  fi

  if load_table "$dir"; then check "$codec" "$mode" load 1 "($ROWS rows from seq, update, delete)"
  else check "$codec" "$mode" load 0; show_failure "$dir" 1; fi

  ok=0
  if sql "$dir" "CREATE DATABASE sbtest" && sysbench_cmd "$dir" prepare >"$dir/sb-prepare.log" 2>&1 &&
     sysbench_cmd "$dir" --events=$SB_EVENTS --time=$SB_TIME --report-interval=0 run \
       >"$dir/sb-run.log" 2>&1; then
    ok=1
  fi
  tps=$(sed -n 's/^ *transactions: *\([0-9]*\) *(\([0-9.]*\) per sec.*/\2/p' "$dir/sb-run.log")
  local ntx=$(sed -n 's/^ *transactions: *\([0-9]*\) .*/\1/p' "$dir/sb-run.log")
  [ -n "$tps" ] || ok=0
  R[$codec,$mode,tps]=${tps:-0}
  check "$codec" "$mode" sysbench "$ok" "(transactions=${ntx:-?} tps=${tps:-?})"
  [ "$ok" = 1 ] || { tail -n 20 "$dir/sb-prepare.log" "$dir/sb-run.log"; show_failure "$dir" 1; }

  if sql "$dir" "SET GLOBAL rocksdb_compact_cf = 'default'"; then check "$codec" "$mode" compact 1
  else check "$codec" "$mode" compact 0; show_failure "$dir" 1; fi

  case "$codec" in zlib) want=Zlib ;; zstd) want=ZSTD ;; lz4hc) want=LZ4HC ;; esac
  codecs=$(sql "$dir" "SELECT GROUP_CONCAT(DISTINCT COMPRESSION_ALGO) FROM information_schema.ROCKSDB_SST_PROPS")
  local nsst=$(sql "$dir" "SELECT COUNT(*) FROM information_schema.ROCKSDB_SST_PROPS")
  [ "$codecs" = "$want" ] && ok=1 || ok=0
  check "$codec" "$mode" sst_codec "$ok" "(files=$nsst algo=$codecs)"

  ref=$(dump_hash "$dir" "$REF_QUERY")
  h=$(dump_hash "$dir" "$DUMP_QUERY")
  s1=$(state "$dir")
  [ "${h%%:*}" = $((ROWS - ROWS / 1000)) ] && [ "$h" = "$ref" ] && ok=1 || ok=0
  check "$codec" "$mode" data "$ok" "(dump=$h seq_reference=$ref $s1)"
  R[$codec,$mode,hash]=$h; R[$codec,$mode,tsum]=${s1%% *}

  if stop_server "$dir" 1; then check "$codec" "$mode" stop 1 "(cpu=$(cpu_of "$dir" 1)s)"
  else check "$codec" "$mode" stop 0; show_failure "$dir" 1; fi

  # ---- life 2: restart in the same mode, read everything back
  if start_server "$dir" "$codec" "$mode" 2; then check "$codec" "$mode" restart 1
  else check "$codec" "$mode" restart 0; show_failure "$dir" 2; stop_server "$dir" 2; return; fi
  local h2=$(dump_hash "$dir" "$DUMP_QUERY")
  s2=$(state "$dir")
  # the secondary index of rp.t too (CHECKSUM TABLE reads the sysbench tables whole)
  sql "$dir" "SELECT COUNT(*), SUM(k) FROM rp.t FORCE INDEX (k_idx)" >/dev/null
  [ "$h2" = "$h" ] && [ "$s2" = "$s1" ] && [ -n "$h2" ] && ok=1 || ok=0
  check "$codec" "$mode" readback "$ok" "(dump=$h2 $s2)"
  if stop_server "$dir" 2; then check "$codec" "$mode" stop_restarted 1 "(cpu=$(cpu_of "$dir" 2)s)"
  else check "$codec" "$mode" stop_restarted 0; show_failure "$dir" 2; fi

  # ---- against stock
  if [ "$mode" != stock ]; then
    [ -n "${R[$codec,stock,hash]:-}" ] && [ "$h" = "${R[$codec,stock,hash]}" ] &&
      [ "${R[$codec,$mode,tsum]}" = "${R[$codec,stock,tsum]}" ] && ok=1 || ok=0
    check "$codec" "$mode" same_as_stock "$ok" "(dump=$h ${R[$codec,$mode,tsum]} stock: dump=${R[$codec,stock,hash]:-none} ${R[$codec,stock,tsum]:-})"
  fi

  # ---- measurements (both lives summed)
  local cpu calls=0 bytes=0 life m leases=0 created=0 reused=0 lib=0 est=0 v f pools=""
  cpu=$(awk -v a="$(cpu_of "$dir" 1 2>/dev/null)" -v b="$(cpu_of "$dir" 2 2>/dev/null)" 'BEGIN { printf "%.2f", a + b }')
  ok=1
  for life in 1 2; do
    m=$(malloc_of "$dir" $life)
    if [ -n "$m" ]; then calls=$((calls + ${m%% *})); bytes=$((bytes + ${m##* })); else ok=0; fi
  done
  R[$codec,$mode,cpu]=$cpu; R[$codec,$mode,calls]=$calls; R[$codec,$mode,bytes]=$bytes
  check "$codec" "$mode" counted "$ok" "(malloc_calls=$calls malloc_bytes=$bytes cpu=${cpu}s)"

  if [ "$mode" != stock ]; then
    ok=1
    for life in 1 2; do
      f="$dir/rockpool.$life"
      grep -q 'rockpool report: event=exit' "$f" 2>/dev/null || ok=0
      for v in leases created reused lib_bytes stock_est_bytes; do
        local x=$(stage_report_field "$f" total $v); x=${x:-0}
        case $v in leases) leases=$((leases + x)) ;; created) created=$((created + x)) ;;
                   reused) reused=$((reused + x)) ;; lib_bytes) lib=$((lib + x)) ;;
                   stock_est_bytes) est=$((est + x)) ;; esac
      done
      pools="$pools life$life:[zstd_c=$(stage_report_field "$f" pools zstd_c) zstd_d=$(stage_report_field "$f" pools zstd_d)"
      pools="$pools deflate=$(stage_report_field "$f" pools deflate) inflate=$(stage_report_field "$f" pools inflate)"
      pools="$pools lz4hc_c=$(stage_report_field "$f" pools lz4hc_c)]"
    done
    R[$codec,$mode,leases]=$leases; R[$codec,$mode,created]=$created
    R[$codec,$mode,reused]=$reused; R[$codec,$mode,lib]=$lib; R[$codec,$mode,est]=$est
    if [ "$mode" = pooled ]; then [ "$leases" -gt 0 ] && [ "$reused" -gt 0 ] || ok=0
    else [ "$lib" -gt 0 ] || ok=0; fi
    check "$codec" "$mode" stats "$ok" "(leases=$leases created=$created reused=$reused lib_bytes=$lib stock_est_bytes=$est$pools)"
    [ "$ok" = 1 ] || { for life in 1 2; do echo "---- $dir/rockpool.$life"; cat "$dir/rockpool.$life" 2>/dev/null; done; }
  fi
  stage_say "$codec $mode took $((SECONDS - t_start))s"
}

[ "$PATTERN_ONLY" = 1 ] || stage_matrix run_case "${CODEC_LIST[@]}"

# ---------------------------------------------------------------- stock pattern 6.29 vs real calls
source "$SCRIPT_DIR/pattern_check.sh"
SST_REPLAY=${SST_REPLAY:-$REPO/bazel-bin/tools/sst_replay/sst_replay}
if [ "$MEASURE" = 1 ] && [ "$STOCK_ONLY" = 0 ]; then
  if [ -x "$SST_REPLAY" ]; then
    # zstd and zlib: the codecs whose 6.29 pattern the check compares.
    for codec in "${CODEC_LIST[@]}"; do
      case "$codec" in zlib|zstd) pattern_case "$codec" ;; esac
    done
  else
    check all pattern sst_replay 0 "(SST_REPLAY=$SST_REPLAY not found: bazel build //tools/sst_replay)"
  fi
fi

print_results
stage_say "total time $(stage_elapsed)s"
stage_summary
[ "$STAGE_FAILED" = 0 ]
