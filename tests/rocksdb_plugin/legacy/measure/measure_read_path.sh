#!/usr/bin/env bash
# The legacy face's read path with Debian's db_bench (RocksDB 7.8.3,
# unmodified): readrandom on a DB of 4 KiB zstd or zlib blocks with a 1 MiB
# block cache, so most reads decompress a block (zlib: an inflateInit2 /
# inflateEnd per block in stock; zstd: ZSTD_createDCtx per table reader and
# RocksDB's per-core DCtx otherwise).
#
#   stock    db_bench alone
#   pooled   LD_PRELOAD=librockpool_preload.so, ROCKPOOL_OPTIONS=max_idle_per_key=8
#
# Two figures per codec, pooled / stock:
#   instructions per read: callgrind (valgrind counts instructions, not time,
#     so the figure does not depend on the machine's load), as the difference
#     of two runs with READS_SMALL and READS_LARGE reads divided by the
#     difference in reads: opening the DB, loading the preload object and
#     exiting cancel out.
#   CPU per read: user+sys seconds of RUNS alternating processes per mode
#     (stock, pooled, stock, ...), READS reads each; the ratio of the medians.
#     Includes opening the DB (the same in both modes).
#
# Usage (from the repository root):
#   tests/rocksdb_plugin/legacy/measure/measure_read_path.sh [runs=9] [codecs="zstd zlib"]
# Environment: NUM (keys, 200000), READS (200000), READS_SMALL (10000),
# READS_LARGE (40000), CALLGRIND=0 to skip callgrind, PRELOAD_DIR (take
# librockpool_preload.so from there instead of building it).
set -euo pipefail
SELF=$(realpath "$0")
cd "$(dirname "$0")/../../../.."
unset ROCKPOOL_OPTIONS ROCKPOOL_STATS ROCKPOOL_STATS_SECONDS

if [ "${1:-}" = --run ]; then  # internal: the command in a mode's environment
  shift
  mode=$1
  shift
  [ "$mode" = pooled ] && exec env LD_PRELOAD="$ROCKPOOL_SO" ROCKPOOL_OPTIONS=max_idle_per_key=8 "$@"
  exec "$@"
fi
RUNS=${1:-9}
CODECS=${2:-zstd zlib}
NUM=${NUM:-200000}
READS=${READS:-200000}
READS_SMALL=${READS_SMALL:-10000}
READS_LARGE=${READS_LARGE:-40000}
BAZEL=${BAZEL:-bazel}
if [ -n "${PRELOAD_DIR:-}" ]; then
  ROCKPOOL=$PRELOAD_DIR/librockpool_preload.so
else
  $BAZEL build --symlink_prefix=/ //rocksdb_plugin:librockpool_preload.so >/dev/null 2>&1
  ROCKPOOL=$($BAZEL info --symlink_prefix=/ bazel-bin 2>/dev/null)/rocksdb_plugin/legacy/librockpool_preload.so
fi
export ROCKPOOL_SO=$ROCKPOOL
WORK=$(mktemp -d /tmp/rockpool_read_path.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# CPU seconds (user + sys, microsecond resolution) of a command.
CPU_OF=$WORK/cpu_of.py
cat >"$CPU_OF" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{r.ru_utime + r.ru_stime:.6f}")
PY

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

read_args() {  # read_args <db> <reads>
  echo --benchmarks=readrandom --use_existing_db=1 --db="$1" --num="$NUM" --reads="$2" \
    --threads=1 --cache_size=1048576 --seed=1 --statistics=0
}

run() {  # run <mode> <command...>: the command, under the mode's environment
  local mode=$1
  shift
  if [ "$mode" = pooled ]; then
    env LD_PRELOAD="$ROCKPOOL" ROCKPOOL_OPTIONS=max_idle_per_key=8 "$@"
  else
    env "$@"
  fi
}

echo "db_bench readrandom, $NUM keys x 100 B (4 KiB blocks, compression_ratio 0.5), 1 MiB block cache, 1 thread"
printf '%-5s %-7s %14s %12s %12s %10s\n' codec mode instr/read cpu_us/read instr_ratio cpu_ratio
for codec in $CODECS; do
  db=$WORK/db_$codec
  /usr/bin/db_bench --benchmarks=fillrandom,compact --db="$db" --num="$NUM" --value_size=100 \
    --compression_ratio=0.5 --block_size=4096 --compression_type="$codec" --seed=1 \
    --statistics=0 >/dev/null 2>&1
  declare -A instr cpu
  for mode in stock pooled; do
    instr[$mode]=nan
    if [ "${CALLGRIND:-1}" != 0 ]; then
      total() {  # total <reads>: instructions of the whole process
        local out=$WORK/cg.$mode.$1
        run "$mode" valgrind --tool=callgrind --callgrind-out-file="$out" \
          /usr/bin/db_bench $(read_args "$db" "$1") >/dev/null 2>&1
        awk '/^summary:/ {print $2}' "$out"
      }
      small=$(total "$READS_SMALL")
      large=$(total "$READS_LARGE")
      instr[$mode]=$(awk -v a="$small" -v b="$large" -v n=$((READS_LARGE - READS_SMALL)) \
        'BEGIN {printf "%.0f", (b - a) / n}')
    fi
  done
  : >"$WORK/cpu.stock"
  : >"$WORK/cpu.pooled"
  for ((i = 0; i < RUNS; i++)); do
    for mode in stock pooled; do
      python3 "$CPU_OF" "$SELF" --run "$mode" /usr/bin/db_bench $(read_args "$db" "$READS") >"$WORK/time"
      awk -v r="$READS" '{printf "%.4f\n", $1 * 1e6 / r}' "$WORK/time" >>"$WORK/cpu.$mode"
    done
  done
  for mode in stock pooled; do cpu[$mode]=$(median <"$WORK/cpu.$mode"); done
  for mode in stock pooled; do
    printf '%-5s %-7s %14s %12s %12s %10s\n' "$codec" "$mode" "${instr[$mode]}" "${cpu[$mode]}" \
      "$(awk -v p="${instr[$mode]}" -v s="${instr[stock]}" 'BEGIN {if (s == "nan") print "-"; else printf "%.3f", p / s}')" \
      "$(awk -v p="${cpu[$mode]}" -v s="${cpu[stock]}" 'BEGIN {printf "%.3f", p / s}')"
  done
  unset instr cpu
done
