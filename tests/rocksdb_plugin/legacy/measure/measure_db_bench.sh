#!/usr/bin/env bash
# Stock vs pooled: Debian's db_bench (RocksDB 7.8.3, unmodified),
# fillrandom + compact, per codec, three modes, medians of N runs.
#
#   plain          db_bench as shipped (no rockpool)
#   measure_stock  LD_PRELOAD rockpool with listeners={id=rockpool;measure_stock=true}:
#                  contexts created and freed exactly where stock RocksDB does,
#                  but through rockpool's counting allocator, so the LOG reports
#                  the codec libraries' real stock bytes and calls
#   pooled         LD_PRELOAD rockpool with listeners={id=rockpool}
#
# Columns: codec-library bytes and allocation calls (rockpool's counting
# allocator, totals of the last `rockpool report` line in the LOG: the whole
# run, fill + flushes + compaction), contexts leased, whole-process malloc
# bytes and calls (libmalloc_counter.so, LD_PRELOADed in every mode), and
# db_bench's wall time.
#
# Usage (from the repository root):
#   tests/rocksdb_plugin/legacy/measure/measure_db_bench.sh [num_keys=200000] [runs=3] [value_size=200] [files]
# files: "default" (db_bench's options: 64 MB memtables and SST files) or
# "small" (4 MB memtables, 1 MB SST files: many files, so many zstd contexts).
# BAZEL="bazel --output_base=..." selects the Bazel command; CODECS="zstd"
# measures only the codecs listed (default "zlib zstd"; "none", "lz4" and
# "lz4hc" too); FLAGS adds db_bench flags to every run (e.g.
# FLAGS=--compression_ratio=0.5).
set -euo pipefail
cd "$(dirname "$0")/../../.."

# Every mode sets up rockpool itself (OPTIONS files): none from the caller's
# environment.
unset ROCKPOOL_OPTIONS ROCKPOOL_STATS ROCKPOOL_STATS_SECONDS

NUM=${1:-200000}
RUNS=${2:-3}
VALUE=${3:-200}
FILES=${4:-default}
BAZEL=${BAZEL:-bazel}
CODECS=${CODECS:-zlib zstd}
FLAGS=${FLAGS:-}

$BAZEL build --symlink_prefix=/ //rocksdb_plugin:librockpool_preload.so \
  //tools/process:libmalloc_counter.so >/dev/null 2>&1
BIN=$($BAZEL info --symlink_prefix=/ bazel-bin 2>/dev/null)
ROCKPOOL=$BIN/rocksdb_plugin/legacy/librockpool_preload.so
COUNTER=$BIN/tools/process/libmalloc_counter.so
WORK=$(mktemp -d /tmp/rockpool_measure.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
field() { # field <line> <section> <name>
  sed -n "s/.*$2[^|]* $3=\([0-9]*\).*/\1/p" <<<"$1"
}

echo "db_bench fillrandom,compact --num=$NUM --value_size=$VALUE $FLAGS, $FILES files, median of $RUNS"
printf '%-6s %-14s %16s %12s %9s %16s %12s %8s\n' codec mode lib_bytes lib_calls leases \
  malloc_bytes malloc_calls wall_s
for codec in $CODECS; do
  # db_bench's own defaults for this codec, as an OPTIONS file.
  base=$WORK/base_$codec
  /usr/bin/db_bench --benchmarks=fillseq --num=10 --compression_type=$codec --db="$base" >/dev/null 2>&1
  opts=$(ls "$base"/OPTIONS-* | tail -1)
  if [ "$FILES" = small ]; then
    sed -i -e 's/^  write_buffer_size=.*/  write_buffer_size=4194304/' \
      -e 's/^  target_file_size_base=.*/  target_file_size_base=1048576/' "$opts"
  fi
  sed 's/^  listeners=.*/  listeners={id=rockpool}/' "$opts" >"$WORK/pooled_$codec.ini"
  sed 's/^  listeners=.*/  listeners={id=rockpool;measure_stock=true}/' "$opts" >"$WORK/measure_$codec.ini"
  for mode in plain measure_stock pooled; do
    case $mode in
      plain) preload=$COUNTER ini=$WORK/pooled_$codec.ini ;;  # entry ignored without rockpool
      measure_stock) preload="$COUNTER $ROCKPOOL" ini=$WORK/measure_$codec.ini ;;
      pooled) preload="$COUNTER $ROCKPOOL" ini=$WORK/pooled_$codec.ini ;;
    esac
    : >"$WORK/lib_bytes" ; : >"$WORK/lib_calls" ; : >"$WORK/leases"
    : >"$WORK/malloc_bytes" ; : >"$WORK/malloc_calls" ; : >"$WORK/wall"
    for run in $(seq "$RUNS"); do
      db=$WORK/db_${codec}_${mode}_$run
      out=$WORK/malloc_${codec}_${mode}_$run
      start=$(date +%s.%N)
      LD_PRELOAD="$preload" MALLOC_COUNTER_OUT=$out /usr/bin/db_bench \
        --benchmarks=fillrandom,compact --num="$NUM" --value_size="$VALUE" --seed=$((1000 + run)) \
        --db="$db" --options_file="$ini" $FLAGS >"$WORK/bench.out" 2>&1
      end=$(date +%s.%N)
      awk "BEGIN {print $end - $start}" >>"$WORK/wall"
      # db_bench's own exit: the last line the counter wrote
      tail -1 "$out" | sed 's/.*malloc_bytes=\([0-9]*\).*/\1/' >>"$WORK/malloc_bytes"
      tail -1 "$out" | sed 's/malloc_calls=\([0-9]*\).*/\1/' >>"$WORK/malloc_calls"
      if [ "$mode" != plain ]; then
        last=$(grep 'rockpool report:' "$db/LOG" | tail -1)
        field "$last" '| total:' lib_bytes >>"$WORK/lib_bytes"
        field "$last" '| total:' lib_allocs >>"$WORK/lib_calls"
        field "$last" '| total:' leases >>"$WORK/leases"
      fi
      rm -rf "$db"
    done
    lb=$(median <"$WORK/lib_bytes"); lc=$(median <"$WORK/lib_calls"); ls_=$(median <"$WORK/leases")
    printf '%-6s %-14s %16s %12s %9s %16s %12s %8.2f\n' "$codec" "$mode" "${lb:--}" "${lc:--}" \
      "${ls_:--}" "$(median <"$WORK/malloc_bytes")" "$(median <"$WORK/malloc_calls")" \
      "$(sort -n "$WORK/wall" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  done
done
