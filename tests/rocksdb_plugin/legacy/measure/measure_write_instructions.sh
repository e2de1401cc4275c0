#!/usr/bin/env bash
# Instructions of the write path, stock vs pooled: Debian's db_bench
# (RocksDB 7.8.3, unmodified) fillrandom,compact under callgrind, per codec,
# once without rockpool and once with the preload object pooling
# (ROCKPOOL_OPTIONS=max_idle_per_key=8). Callgrind counts instructions, not
# time, so the ratio does not depend on the machine's load; both runs use
# the same seed and so write the same data. The whole process is counted
# (loading the preload object included).
#
# Usage (from the repository root):
#   tests/rocksdb_plugin/legacy/measure/measure_write_instructions.sh [codecs="lz4 lz4hc"]
# Environment: NUM (keys, 100000), VALUE (bytes, 200), FLAGS (more db_bench
# flags; default --compression_ratio=0.5), BAZEL.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
unset ROCKPOOL_OPTIONS ROCKPOOL_STATS ROCKPOOL_STATS_SECONDS
CODECS=${1:-lz4 lz4hc}
NUM=${NUM:-100000}
VALUE=${VALUE:-200}
FLAGS=${FLAGS:---compression_ratio=0.5}
BAZEL=${BAZEL:-bazel}
$BAZEL build --symlink_prefix=/ //rocksdb_plugin:librockpool_preload.so >/dev/null 2>&1
ROCKPOOL=$($BAZEL info --symlink_prefix=/ bazel-bin 2>/dev/null)/rocksdb_plugin/legacy/librockpool_preload.so
WORK=$(mktemp -d /tmp/rockpool_write_ir.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

echo "db_bench fillrandom,compact --num=$NUM --value_size=$VALUE $FLAGS under callgrind"
printf '%-6s %16s %16s %8s\n' codec stock_instr pooled_instr ratio
for codec in $CODECS; do
  declare -A ir
  for mode in stock pooled; do
    env_args=()
    [ "$mode" = pooled ] && env_args=(LD_PRELOAD="$ROCKPOOL" ROCKPOOL_OPTIONS=max_idle_per_key=8)
    env "${env_args[@]}" valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.$codec.$mode" \
      /usr/bin/db_bench --benchmarks=fillrandom,compact --num="$NUM" --value_size="$VALUE" \
      --compression_type="$codec" --seed=1 --threads=1 --statistics=0 --db="$WORK/db.$codec.$mode" \
      $FLAGS >/dev/null 2>&1
    ir[$mode]=$(awk '/^summary:/ {print $2}' "$WORK/cg.$codec.$mode")
    rm -rf "$WORK/db.$codec.$mode"
  done
  printf '%-6s %16s %16s %8s\n' "$codec" "${ir[stock]}" "${ir[pooled]}" \
    "$(awk -v p="${ir[pooled]}" -v s="${ir[stock]}" 'BEGIN {printf "%.4f", p / s}')"
  unset ir
done
