#!/usr/bin/env bash
# BlobDB with Debian's db_bench (RocksDB 7.8.3, unmodified): stock vs pooled
# blob compression, against the same run with uncompressed blobs.
#
# RocksDB 7.8.3 builds a compression context for every blob it writes
# (BlobFileBuilder::CompressBlobIfNeeded) and, for zlib, an inflate stream
# for every blob it reads. Workload: an OPTIONS file with
# enable_blob_files=true, min_blob_size=512, blob_compression_type=<codec>,
# db_bench fillrandom,compact, NUM keys x 2 KiB values.
#
#   none     blobs uncompressed (blob_compression_type=kNoCompression), no rockpool
#   stock    blobs compressed, no rockpool
#   pooled   blobs compressed, LD_PRELOAD rockpool, listeners={id=rockpool}
#
# Runs alternate (none, stock, pooled, none, ...) so that the machine's load
# hits every mode alike. Columns: medians of whole-process malloc bytes and
# calls (libmalloc_counter.so, LD_PRELOADed in every mode), CPU seconds
# (user + sys) and wall seconds; the ratios the targets are about.
#
# Usage (from the repository root):
#   tests/rocksdb_plugin/legacy/measure/measure_blob_db_bench.sh [num_keys=100000] [runs=5] [codecs="zstd zlib"]
# PRELOAD_DIR=dir takes librockpool_preload.so and libmalloc_counter.so from
# dir instead of building them.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
unset ROCKPOOL_OPTIONS ROCKPOOL_STATS ROCKPOOL_STATS_SECONDS

NUM=${1:-100000}
RUNS=${2:-5}
CODECS=${3:-zstd zlib}
BAZEL=${BAZEL:-bazel}
if [ -n "${PRELOAD_DIR:-}" ]; then
  ROCKPOOL=$PRELOAD_DIR/librockpool_preload.so COUNTER=$PRELOAD_DIR/libmalloc_counter.so
else
  $BAZEL build --symlink_prefix=/ //rocksdb_plugin:librockpool_preload.so \
    //tools/process:libmalloc_counter.so >/dev/null 2>&1
  BIN=$($BAZEL info --symlink_prefix=/ bazel-bin 2>/dev/null)
  ROCKPOOL=$BIN/rocksdb_plugin/legacy/librockpool_preload.so
  COUNTER=$BIN/tools/process/libmalloc_counter.so
fi
WORK=$(mktemp -d /tmp/rockpool_blob_measure.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "db_bench fillrandom,compact --num=$NUM --value_size=2048, BlobDB (min_blob_size=512), median of $RUNS alternating runs"
printf '%-5s %-7s %14s %12s %8s %8s %10s %8s\n' codec mode malloc_bytes malloc_calls cpu_s wall_s \
  malloc/none cpu/stock
for codec in $CODECS; do
  case $codec in
    zstd) type=kZSTD ;;
    zlib) type=kZlibCompression ;;
    *) echo "unknown codec $codec" >&2; exit 2 ;;
  esac
  base=$WORK/base_$codec
  /usr/bin/db_bench --benchmarks=fillseq --num=10 --db="$base" >/dev/null 2>&1
  opts=$(ls "$base"/OPTIONS-* | tail -1)
  blob() {  # blob <compression type> <listeners> <out>
    sed -e 's/^  enable_blob_files=.*/  enable_blob_files=true/' \
      -e 's/^  min_blob_size=.*/  min_blob_size=512/' \
      -e "s/^  blob_compression_type=.*/  blob_compression_type=$1/" \
      -e "s/^  listeners=.*/  listeners=$2/" "$opts" >"$3"
  }
  blob kNoCompression '' "$WORK/none.ini"
  blob "$type" '' "$WORK/stock.ini"
  blob "$type" '{id=rockpool}' "$WORK/pooled.ini"
  for mode in none stock pooled; do : >"$WORK/$mode.bytes"; : >"$WORK/$mode.calls"; : >"$WORK/$mode.cpu"; : >"$WORK/$mode.wall"; done
  for run in $(seq "$RUNS"); do
    for mode in none stock pooled; do
      preload=$COUNTER
      [ "$mode" = pooled ] && preload="$COUNTER $ROCKPOOL"
      db=$WORK/db_$mode
      out=$WORK/malloc_$mode
      rm -rf "$db" "$out"
      start=$(date +%s.%N)
      # time(1) outside the preload: only db_bench is counted (env execs it).
      /usr/bin/time -f '%U %S' -o "$WORK/time" env LD_PRELOAD="$preload" MALLOC_COUNTER_OUT="$out" \
        /usr/bin/db_bench --benchmarks=fillrandom,compact --num="$NUM" --value_size=2048 \
        --seed=$((1000 + run)) --db="$db" --options_file="$WORK/$mode.ini" >"$WORK/bench.out" 2>&1
      end=$(date +%s.%N)
      awk "BEGIN {print $end - $start}" >>"$WORK/$mode.wall"
      awk '{print $1 + $2}' "$WORK/time" >>"$WORK/$mode.cpu"
      tail -1 "$out" | sed 's/.*malloc_bytes=\([0-9]*\).*/\1/' >>"$WORK/$mode.bytes"
      tail -1 "$out" | sed 's/malloc_calls=\([0-9]*\).*/\1/' >>"$WORK/$mode.calls"
      rm -rf "$db"
    done
  done
  none_bytes=$(median <"$WORK/none.bytes")
  stock_cpu=$(median <"$WORK/stock.cpu")
  for mode in none stock pooled; do
    b=$(median <"$WORK/$mode.bytes"); c=$(median <"$WORK/$mode.cpu")
    printf '%-5s %-7s %14.0f %12.0f %8.2f %8.2f %10.2f %8.2f\n' "$codec" "$mode" "$b" \
      "$(median <"$WORK/$mode.calls")" "$c" "$(median <"$WORK/$mode.wall")" \
      "$(awk "BEGIN {print $b / $none_bytes}")" "$(awk "BEGIN {print $c / $stock_cpu}")"
  done
done
