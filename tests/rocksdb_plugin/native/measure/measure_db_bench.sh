#!/usr/bin/env bash
# Built-in vs rockpool in RocksDB's own db_bench (RocksDB >= 10.4 built with
# ROCKSDB_PLUGINS=rockpool, see rocksdb_plugin/native/rockpool/README.md),
# side by side in alternating runs; medians.
#
#   builtin     OPTIONS file without compression_manager (RocksDB's built-in)
#   native      the same OPTIONS file with compression_manager=rockpool
#   interpose   builtin + LD_PRELOAD=librockpool_interpose.so
#               (ROCKPOOL_OPTIONS=max_idle_per_key=8): zstd/zlib interposed
#   both        native + interpose in one process
#
# Workloads: fill = fillrandom,compact with automatic compactions off (the
# same flushes and one full compaction in every run; whole-process malloc bytes/calls from
# libmalloc_counter.so, CPU = user+sys seconds) with db_bench's default
# options (64 MiB memtables and files); fill4m = the same with 4 MiB
# memtables and SST files (many files); read = readrandom on a DB
# filled once with the built-in, 1 MiB block cache (CPU); readsec = the same
# with a 32 MiB compressed secondary cache of the codec behind the block
# cache (RocksDB compresses its entries with the built-in manager); blob = fill with
# integrated BlobDB (enable_blob_files, min_blob_size=512, 2 KiB values,
# blob_compression_type = the codec).
#
# A db_bench of a prebuilt shared RocksDB (no plugin inside): NATIVE_SO=the
# librockpool_native.so built against that install, preloaded in every mode
# (so only the OPTIONS file differs between builtin and native).
#
# Usage (repository root, bazel pointed at the same upstream install):
#   DB_BENCH=/path/to/plugin-build/db_bench [NATIVE_SO=/path/to/librockpool_native.so] \
#   BAZEL="bazel --output_base=... " BAZEL_FLAGS="--repo_env=ROCKPOOL_ROCKSDB_PREFIX=..." \
#   tests/rocksdb_plugin/native/measure/measure_db_bench.sh [workload=fill|fill4m|read|readsec|blob] [runs=5] [num=200000] [modes="builtin native"] [codecs="zstd zlib"]
set -euo pipefail
cd "$(dirname "$0")/../../../.."
unset ROCKPOOL_OPTIONS ROCKPOOL_STATS ROCKPOOL_STATS_SECONDS ROCKPOOL_NATIVE_STATS

WORKLOAD=${1:-fill}
RUNS=${2:-5}
NUM=${3:-200000}
MODES=${4:-builtin native}
CODECS=${5:-zstd zlib}
DB_BENCH=${DB_BENCH:?set DB_BENCH to a db_bench built with ROCKSDB_PLUGINS=rockpool}
NATIVE_SO=${NATIVE_SO:-}
BAZEL=${BAZEL:-bazel}
BAZEL_FLAGS=${BAZEL_FLAGS:-}

$BAZEL build $BAZEL_FLAGS --symlink_prefix=/ //rocksdb_plugin:librockpool_interpose.so \
  //tools/process:libmalloc_counter.so >/dev/null 2>&1
BIN=$($BAZEL info $BAZEL_FLAGS --symlink_prefix=/ bazel-bin 2>/dev/null)
INTERPOSE=$BIN/rocksdb_plugin/legacy/librockpool_interpose.so
COUNTER=$BIN/tools/process/libmalloc_counter.so
WORK=${WORK:-$(mktemp -d /tmp/rockpool_native_measure.XXXXXX)}
mkdir -p "$WORK"

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
field() { sed -n "s/.*$2[^|]* $3=\([0-9]*\).*/\1/p" <<<"$1"; }

# OPTIONS files: db_bench's own defaults for the codec, then our changes.
options_for() { # codec mode -> path
  local codec=$1 mode=$2 base=$WORK/base_${WORKLOAD}_$1
  if [ ! -d "$base" ]; then
    "$DB_BENCH" --benchmarks=fillseq --num=10 --compression_type=$codec --db="$base" >/dev/null 2>&1
  fi
  local src out=$WORK/OPTIONS_${WORKLOAD}_${codec}_$mode
  src=$(ls "$base"/OPTIONS-* | sort -V | tail -1)
  cp "$src" "$out"
  if [ "$WORKLOAD" = fill4m ]; then
    sed -i -e 's/^  write_buffer_size=.*/  write_buffer_size=4194304/' \
      -e 's/^  target_file_size_base=.*/  target_file_size_base=4194304/' "$out"
  fi
  case $WORKLOAD in
    fill | fill4m | blob)
      # Flushes only, then db_bench's compact: the same work in every run
      # (background compactions during the fill depend on timing, and so
      # would the LSM shape, malloc and CPU).
      sed -i 's/^  disable_auto_compactions=.*/  disable_auto_compactions=true/' "$out"
      ;;
  esac
  if [ "$WORKLOAD" = blob ]; then
    sed -i -e 's/^  enable_blob_files=.*/  enable_blob_files=true/' \
      -e 's/^  min_blob_size=.*/  min_blob_size=512/' \
      -e "s/^  blob_compression_type=.*/  blob_compression_type=$([ $codec = zstd ] && echo kZSTD || echo kZlibCompression)/" "$out"
  fi
  case $mode in
    native | both)
      sed -i 's/^  compression_manager=.*/  compression_manager={id=rockpool;max_idle_per_key=8}/' "$out"
      grep -q '^  compression_manager={id=rockpool' "$out" ||
        sed -i 's/^\(\[CFOptions "default"\]\)$/\1\n  compression_manager={id=rockpool;max_idle_per_key=8}/' "$out"
      ;;
  esac
  echo "$out"
}

run_one() { # codec mode run -> prints "malloc_bytes malloc_calls cpu_s leases"
  local codec=$1 mode=$2 run=$3 opts db pre=$COUNTER args
  opts=$(options_for "$codec" "$mode")
  db=$WORK/db_${WORKLOAD}_${codec}
  case $mode in interpose | both) pre="$COUNTER $INTERPOSE" ;; esac
  [ -z "$NATIVE_SO" ] || pre="$pre $NATIVE_SO"
  local out=$WORK/out_${WORKLOAD}_${codec}_${mode}_$run
  rm -f "$out".malloc "$out".stats "$out".native
  case $WORKLOAD in
    fill | fill4m | blob)
      rm -rf "$db"
      args=(--benchmarks=fillrandom,compact --num=$NUM --value_size=$([ $WORKLOAD = blob ] && echo 2048 || echo 200) --db="$db")
      ;;
    read)
      args=(--benchmarks=readrandom --use_existing_db=1 --num=$NUM --reads=$NUM --cache_size=1048576 --db="$db")
      ;;
    readsec)
      args=(--benchmarks=readrandom --use_existing_db=1 --num=$NUM --reads=$NUM --cache_size=1048576
        --use_compressed_secondary_cache=1 --compressed_secondary_cache_size=33554432
        --compressed_secondary_cache_compression_type=$codec --db="$db")
      ;;
  esac
  # time(1) runs without the preloads; env(1) execs db_bench with them.
  /usr/bin/time -f "%U %S" -o "$out".time env MALLOC_COUNTER_OUT="$out".malloc \
    ROCKPOOL_NATIVE_STATS="$out".native ROCKPOOL_STATS="$out".stats \
    ROCKPOOL_OPTIONS="$(case $mode in interpose | both) echo max_idle_per_key=8 ;; esac)" LD_PRELOAD="$pre" \
    "$DB_BENCH" "${args[@]}" --options_file="$opts" --statistics=0 >"$out".log 2>&1 ||
    { echo "db_bench failed: $out.log" >&2; exit 1; }
  local mb mc cpu leases=0 line
  mb=$(sed -n 's/.*malloc_bytes=\([0-9]*\).*/\1/p' "$out".malloc | tail -1)
  mc=$(sed -n 's/.*malloc_calls=\([0-9]*\).*/\1/p' "$out".malloc | tail -1)
  cpu=$(awk '{print $1 + $2}' "$out".time)
  # rockpool leases: native (LOG's last report, or the close report), interposed (ROCKPOOL_STATS)
  line=$(grep -h 'rockpool report:' "$db"/LOG 2>/dev/null | tail -1 || true)
  [ -s "$out".native ] && line=$(tail -1 "$out".native)
  local n=0 i=0
  [ -n "$line" ] && [ "$mode" != builtin ] && [ "$mode" != interpose ] && n=$(field "$line" '| total:' leases)
  [ -s "$out".stats ] && i=$(field "$(cat "$out".stats)" '| total:' leases)
  echo "$mb $mc $cpu ${n:-0} ${i:-0}"
}

echo "db_bench $WORKLOAD, --num=$NUM, median of $RUNS alternating runs ($DB_BENCH)"
printf '%-5s %-10s %14s %12s %8s %12s %12s\n' codec mode malloc_MB malloc_calls cpu_s native_leases interp_leases
for codec in $CODECS; do
  if [ "$WORKLOAD" = read ] || [ "$WORKLOAD" = readsec ]; then  # one DB, filled once (built-in)
    rm -rf "$WORK/db_${WORKLOAD}_$codec"
    "$DB_BENCH" --benchmarks=fillrandom,compact --num=$NUM --value_size=200 --compression_type=$codec \
      --db="$WORK/db_${WORKLOAD}_$codec" >/dev/null 2>&1
  fi
  declare -A MB MC CPU NL IL
  for mode in $MODES; do MB[$mode]=""; MC[$mode]=""; CPU[$mode]=""; NL[$mode]=""; IL[$mode]=""; done
  for run in $(seq 1 "$RUNS"); do
    for mode in $MODES; do
      read -r mb mc cpu nl il < <(run_one "$codec" "$mode" "$run")
      MB[$mode]+="$mb "; MC[$mode]+="$mc "; CPU[$mode]+="$cpu "; NL[$mode]+="$nl "; IL[$mode]+="$il "
    done
  done
  for mode in $MODES; do
    printf '%-5s %-10s %14.1f %12d %8.2f %12d %12d   cpu runs: %s\n' "$codec" "$mode" \
      "$(echo ${MB[$mode]} | tr ' ' '\n' | median | awk '{print $1/1e6}')" \
      "$(echo ${MC[$mode]} | tr ' ' '\n' | median)" \
      "$(echo ${CPU[$mode]} | tr ' ' '\n' | median)" \
      "$(echo ${NL[$mode]} | tr ' ' '\n' | median)" \
      "$(echo ${IL[$mode]} | tr ' ' '\n' | median)" "${CPU[$mode]}"
  done
  unset MB MC CPU NL IL
done
echo "work dir: $WORK"
