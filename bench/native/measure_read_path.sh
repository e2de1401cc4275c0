#!/usr/bin/env bash
# Native face read path: stock (RocksDB's built-in compression manager) vs
# pooled (compression_manager=rockpool), with //bench/native:native_read_bench
# built against an upstream RocksDB install (>= 10.4).
#
#   CPU per read: process CPU time of the read loop / reads, in RUNS
#     alternating processes per codec (stock and pooled take turns going
#     first); the ratio of the medians, pooled / stock.
#   Instructions per read: one callgrind run per mode and codec with
#     CALLGRIND_READS reads, only the read loop collected (--toggle-collect);
#     the ratio, pooled / stock.
#
# Usage (repository root):
#   PREFIX=/path/to/rocksdb/install [BAZEL="bazel --output_base=..."] \
#     bench/native/measure_read_path.sh [runs=9] [keys=200000] [reads=200000] \
#     [callgrind_reads=20000] [codecs="zstd zlib"]
# WORK=dir keeps the DBs and outputs (default: a new /tmp directory);
# NICE="nice -n 10" (default) runs everything niced.
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${1:-9}
KEYS=${2:-200000}
READS=${3:-200000}
CG_READS=${4:-20000}
CODECS=${5:-zstd zlib}
PREFIX=${PREFIX:?set PREFIX to an upstream RocksDB install (include/, lib/librocksdb.a)}
BAZEL=${BAZEL:-bazel}
NICE=${NICE:-nice -n 10}
FLAGS=(--symlink_prefix=/ --repo_env=ROCKPOOL_ROCKSDB_PREFIX="$PREFIX")

$NICE $BAZEL build "${FLAGS[@]}" //bench/native:native_read_bench >/dev/null 2>&1 ||
  { $BAZEL build "${FLAGS[@]}" //bench/native:native_read_bench; exit 1; }
BIN=$($BAZEL info "${FLAGS[@]}" bazel-bin 2>/dev/null)/bench/native/native_read_bench
WORK=${WORK:-$(mktemp -d /tmp/rockpool_native_read.XXXXXX)}
mkdir -p "$WORK"

median() { sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }

run() { # codec mode [args...] -> the benchmark's line
  local codec=$1 mode=$2
  shift 2
  $NICE "$BIN" --mode="$mode" --codec="$codec" --db="$WORK/db_$codec" "$@"
}

echo "native read path: $KEYS keys, 4 KiB blocks, 1 MiB block cache; $BIN"
echo "$(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %14s %14s %8s %14s %14s %8s\n' codec stock_ns/read pooled_ns/read ratio \
  stock_Ir/read pooled_Ir/read ratio
for codec in $CODECS; do
  if [ ! -d "$WORK/db_$codec" ]; then
    run "$codec" create --keys="$KEYS" >"$WORK/create_$codec.txt"
  fi
  # Once each, untimed: page cache, and the blocks decompressed per read.
  for mode in stock pooled; do
    run "$codec" "$mode" --keys="$KEYS" --reads=20000 --statistics >"$WORK/check_${codec}_$mode.txt"
  done
  declare -A CPU=([stock]="" [pooled]="")
  for i in $(seq 1 "$RUNS"); do
    order="stock pooled"
    [ $((i % 2)) -eq 0 ] && order="pooled stock"
    for mode in $order; do
      line=$(run "$codec" "$mode" --keys="$KEYS" --reads="$READS")
      echo "$line" >>"$WORK/runs_$codec.txt"
      CPU[$mode]+="$(field cpu_ns_per_read <<<"$line") "
    done
  done
  declare -A IR=() CTX=()
  for mode in stock pooled; do
    out=$WORK/callgrind_${codec}_$mode.out
    (cd "$WORK" && $NICE valgrind --tool=callgrind --collect-atstart=no \
      --toggle-collect=rockpool_native_read_loop --callgrind-out-file="$out" \
      "$BIN" --mode="$mode" --codec="$codec" --db="$WORK/db_$codec" --keys="$KEYS" \
      --reads="$CG_READS" --warmup=5000 >"$out.txt" 2>"$out.err")
    total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out.err")
    IR[$mode]=$(awk -v t="$total" -v n="$CG_READS" 'BEGIN {printf "%.0f", t / n}')
    # Inclusive Ir of the context lease and return: the pool's Acquire and
    # Return (pooled; Return includes the policy's Reset), RocksDB's per-core
    # ZSTD_DCtx cache (stock zstd; zlib stock runs inflateInit2/inflateEnd).
    CTX[$mode]=$(callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$out" 2>/dev/null |
      awk -v n="$CG_READS" '!/=>/ && (/context_pool.h:rockpool::ContextPool<[^ ]*>::(Acquire|Return)\(/ ||
        /CompressionContextCache::(GetCachedZSTDUncompressData|ReturnCachedZSTDUncompressData|Instance)\(/ ||
        /:inflateInit2_ |:inflateEnd /) {gsub(",", "", $1); s += $1} END {printf "%.0f", s / n}')
  done
  s=$(tr ' ' '\n' <<<"${CPU[stock]}" | median)
  p=$(tr ' ' '\n' <<<"${CPU[pooled]}" | median)
  printf '%-5s %14.1f %14.1f %8.4f %14d %14d %8.4f\n' "$codec" "$s" "$p" \
    "$(awk -v a="$p" -v b="$s" 'BEGIN {print a / b}')" "${IR[stock]}" "${IR[pooled]}" \
    "$(awk -v a="${IR[pooled]}" -v b="${IR[stock]}" 'BEGIN {print a / b}')"
  echo "      cpu runs stock: ${CPU[stock]}"
  echo "      cpu runs pooled: ${CPU[pooled]}"
  echo "      context lease+return Ir/read: stock ${CTX[stock]} (per-core DCtx cache, or inflateInit2+inflateEnd), pooled ${CTX[pooled]} (pool Acquire+Return)"
  echo "      $(field decompressed_per_read <"$WORK/check_${codec}_stock.txt" | sed 's/^/blocks decompressed per read: /')"
  unset CPU IR CTX
done
echo "work dir: $WORK (callgrind_annotate $WORK/callgrind_<codec>_<mode>.out)"
