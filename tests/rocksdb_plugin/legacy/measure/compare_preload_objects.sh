#!/usr/bin/env bash
# Two builds of the legacy face side by side on the write path: Debian's
# db_bench fillrandom,compact (RocksDB 7.8.3) under preload object A, then
# B, alternating, RUNS rounds per codec, pooling on (ROCKPOOL_OPTIONS).
# For a performance change: "CPU and malloc no worse than before".
#
# Columns (medians): CPU seconds (user + sys, getrusage), whole-process
# malloc bytes and calls (libmalloc_counter.so), and B / A.
#
# Usage (from the repository root):
#   tests/rocksdb_plugin/legacy/measure/compare_preload_objects.sh A.so B.so [runs=5] [codecs="zlib zstd"]
# A previous commit's object, e.g.:
#   git worktree add /tmp/old <commit> && (cd /tmp/old && bazel --output_base=$HOME/.cache/bazel_old \
#     build //rocksdb_plugin:librockpool_preload.so)
# NUM (200000 keys) and VALUE (200 B) size the run.
set -euo pipefail
SELF=$(realpath "$0")
if [ "${1:-}" = --run ]; then  # internal: <preload list> <command...>
  preload=$2
  shift 2
  exec env LD_PRELOAD="$preload" ROCKPOOL_OPTIONS=max_idle_per_key=8 "$@"
fi
A=$(realpath "${1:?usage: $0 A.so B.so [runs] [codecs]}")
B=$(realpath "${2:?usage: $0 A.so B.so [runs] [codecs]}")
RUNS=${3:-5}
CODECS=${4:-zlib zstd}
NUM=${NUM:-200000}
VALUE=${VALUE:-200}
cd "$(dirname "$0")/../../../.."
unset ROCKPOOL_OPTIONS ROCKPOOL_STATS ROCKPOOL_STATS_SECONDS
BAZEL=${BAZEL:-bazel}
$BAZEL build --symlink_prefix=/ //tools/process:libmalloc_counter.so >/dev/null 2>&1
COUNTER=$($BAZEL info --symlink_prefix=/ bazel-bin 2>/dev/null)/tools/process/libmalloc_counter.so
WORK=$(mktemp -d /tmp/rockpool_compare.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cat >"$WORK/cpu_of.py" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{r.ru_utime + r.ru_stime:.6f}")
PY
median() { sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "db_bench fillrandom,compact --num=$NUM --value_size=$VALUE, pooled; A=$A B=$B; medians of $RUNS alternating runs"
printf '%-5s %-2s %8s %16s %12s\n' codec so cpu_s malloc_bytes malloc_calls
for codec in $CODECS; do
  for so in A B; do : >"$WORK/cpu.$so"; : >"$WORK/bytes.$so"; : >"$WORK/calls.$so"; done
  for ((i = 0; i < RUNS; i++)); do
    for so in A B; do
      obj=$A
      [ "$so" = B ] && obj=$B
      db=$WORK/db
      out=$WORK/malloc
      MALLOC_COUNTER_OUT=$out python3 "$WORK/cpu_of.py" "$SELF" --run "$COUNTER $obj" \
        /usr/bin/db_bench --benchmarks=fillrandom,compact --num="$NUM" --value_size="$VALUE" \
        --seed=$((1000 + i)) --compression_type="$codec" --db="$db" >>"$WORK/cpu.$so"
      tail -1 "$out" | sed 's/.*malloc_bytes=\([0-9]*\).*/\1/' >>"$WORK/bytes.$so"
      tail -1 "$out" | sed 's/malloc_calls=\([0-9]*\).*/\1/' >>"$WORK/calls.$so"
      rm -rf "$db" "$out"
    done
  done
  for so in A B; do
    printf '%-5s %-2s %8.3f %16s %12s\n' "$codec" "$so" "$(median <"$WORK/cpu.$so")" \
      "$(median <"$WORK/bytes.$so")" "$(median <"$WORK/calls.$so")"
  done
  awk -v a="$(median <"$WORK/cpu.A")" -v b="$(median <"$WORK/cpu.B")" \
    -v ma="$(median <"$WORK/bytes.A")" -v mb="$(median <"$WORK/bytes.B")" \
    'BEGIN {printf "%-5s B/A cpu %.3f, malloc bytes %.4f\n", "", b / a, mb / ma}'
done
