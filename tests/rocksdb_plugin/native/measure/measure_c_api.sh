#!/usr/bin/env bash
# The C API program (tests/rocksdb_plugin/native/c_api/c_api_fill.c) on a
# shared upstream install with librockpool_native.so preloaded: fill +
# compact + read back of NUM keys x 200 B, whole-process malloc
# (libmalloc_counter.so) side by side in alternating runs, medians:
#   none      compression=kNoCompression (the reference)
#   builtin   compression=kZlibCompression (RocksDB's built-in manager)
#   rockpool  compression_manager=rockpool;compression=kZlibCompression
# and the ratio rockpool/none; then the data blocks of a rockpool DB and a
# builtin DB compared (data_blocks_equal), and the rockpool DB read by the
# install's stock ldb and sst_dump ($PREFIX/bin, no rockpool loaded).
#
# Usage (repository root; the install made with `make install-shared`):
#   PREFIX=/opt/rocksdb-shared BAZEL="bazel --output_base=$HOME/.cache/bazel_upstream" \
#   tests/rocksdb_plugin/native/measure/measure_c_api.sh [runs=3] [num=200000]
set -euo pipefail
cd "$(dirname "$0")/../../../.."
unset ROCKPOOL_OPTIONS ROCKPOOL_STATS ROCKPOOL_NATIVE_STATS LD_PRELOAD

RUNS=${1:-3}
NUM=${2:-200000}
PREFIX=${PREFIX:?set PREFIX to the install (make install-shared)}
BAZEL=${BAZEL:-bazel}
FLAGS=(--symlink_prefix=/ --repo_env=ROCKPOOL_ROCKSDB_PREFIX="$PREFIX")

$BAZEL build "${FLAGS[@]}" //rocksdb_plugin/native:librockpool_native.so \
  //tests/rocksdb_plugin/native:c_api_fill //tests/rocksdb_plugin/native:data_blocks_equal \
  //tools/process:libmalloc_counter.so >/dev/null 2>&1
BIN=$($BAZEL info "${FLAGS[@]}" bazel-bin 2>/dev/null)
FILL=$BIN/tests/rocksdb_plugin/native/c_api_fill
EQUAL=$BIN/tests/rocksdb_plugin/native/data_blocks_equal
NATIVE=$BIN/rocksdb_plugin/native/librockpool_native.so
COUNTER=$BIN/tools/process/libmalloc_counter.so
WORK=${WORK:-$(mktemp -d /tmp/rockpool_c_api.XXXXXX)}
mkdir -p "$WORK"

declare -A OPTS=(
  [none]="compression=kNoCompression"
  [builtin]="compression=kZlibCompression"
  [rockpool]="compression_manager=rockpool;compression=kZlibCompression"
)
median() { sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

rm -f "$WORK"/malloc_*  # the counter appends a line per process
for ((run = 1; run <= RUNS; ++run)); do
  for mode in none builtin rockpool; do
    rm -rf "$WORK/db_$mode"
    MALLOC_COUNTER_OUT="$WORK/malloc_$mode" LD_PRELOAD="$COUNTER $NATIVE" \
      "$FILL" "$WORK/db_$mode" "${OPTS[$mode]}" "$NUM" >/dev/null
  done
done
declare -A MB
for mode in none builtin rockpool; do
  MB[$mode]=$(sed -n 's/.*malloc_bytes=\([0-9]*\).*/\1/p' "$WORK/malloc_$mode" |
    awk '{print $1 / 1e6}' | median)
  printf '%-9s malloc %10.1f MB (median of %d; %s)\n' "$mode" "${MB[$mode]}" "$RUNS" "${OPTS[$mode]}"
  printf '          runs (MB, calls):%s\n' "$(awk -F'[= ]' '{printf " %.1f/%d", $4 / 1e6, $2}' "$WORK/malloc_$mode")"
done
awk -v r="${MB[rockpool]}" -v n="${MB[none]}" -v b="${MB[builtin]}" \
  'BEGIN {printf "rockpool / none = %.3f, builtin / none = %.3f\n", r / n, b / n}'
"$EQUAL" "$WORK/db_rockpool" "$WORK/db_builtin"
grep -h -m1 -o 'rockpool active:.*' "$WORK"/db_rockpool/LOG* | head -1
# The install's stock tools (no rockpool loaded) read the rockpool DB.
if [[ -x $PREFIX/bin/ldb && -x $PREFIX/bin/sst_dump ]]; then
  echo "stock ldb scan: $("$PREFIX/bin/ldb" --db="$WORK/db_rockpool" scan | wc -l) of $NUM keys;" \
    "stock sst_dump --command=check: $("$PREFIX/bin/sst_dump" --file="$WORK/db_rockpool" --command=check >/dev/null && echo ok)"
fi
