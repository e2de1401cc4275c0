#!/usr/bin/env bash
# RocksDB's own db_stress against the native face: a RocksDB >= 10.4 built
# with ROCKSDB_PLUGINS=rockpool (rocksdb_plugin/native/rockpool/README.md),
# compression_manager=rockpool from an OPTIONS file, one run per
# configuration: 4 threads, 5 reopens, flushes and manual compactions,
# verification on. db_stress 11.x replaces the compression manager with its
# own --compression_manager (default "mixed") unless given "none".
#
# A run counts only if rockpool served it: the DB's LOGs must show the
# "rockpool active" line and report lines with leases > 0 (summed over every
# report's since_last, all reopens).
#
#   DB_STRESS=/path/to/db_stress DB_BENCH=/path/to/db_bench \
#     tests/rocksdb_plugin/native/measure/run_db_stress.sh [ops_per_thread=20000] [configs...]
set -euo pipefail
DB_STRESS=${DB_STRESS:?set DB_STRESS}
DB_BENCH=${DB_BENCH:?set DB_BENCH (only to write a base OPTIONS file)}
OPS=${1:-20000}
shift || true
CONFIGS=${*:-zstd zlib zstd_dict zstd_trained zlib_dict zstd_parallel zlib_parallel}
WORK=${WORK:-$(mktemp -d /tmp/rockpool_db_stress.XXXXXX)}
mkdir -p "$WORK"
unset ROCKPOOL_OPTIONS ROCKPOOL_STATS ROCKPOOL_NATIVE_STATS

# --compression_type: a build without Snappy (CMake default) rejects db_bench's default.
"$DB_BENCH" --benchmarks=fillseq --num=10 --compression_type=zstd --db="$WORK/base" >/dev/null 2>&1
BASE=$(ls "$WORK"/base/OPTIONS-* | sort -V | tail -1)

options_for() { # config -> OPTIONS path
  local cfg=$1 type opts out=$WORK/OPTIONS_$1
  case $cfg in zstd*) type=kZSTD ;; zlib*) type=kZlibCompression ;; esac
  case $cfg in
    *_dict) opts="max_dict_bytes=16384;enabled=true" ;;
    *_trained) opts="max_dict_bytes=16384;zstd_max_train_bytes=65536;enabled=true" ;;
    *_parallel) opts="parallel_threads=4;enabled=true" ;;
    *) opts="enabled=true" ;;
  esac
  sed -e "s/^  compression=.*/  compression=$type/" \
    -e "s/^  bottommost_compression=.*/  bottommost_compression=$type/" \
    -e "s/^  compression_opts=.*/  compression_opts={$opts}/" \
    -e "s/^  bottommost_compression_opts=.*/  bottommost_compression_opts={$opts}/" \
    -e 's/^  compression_manager=.*/  compression_manager={id=rockpool;max_idle_per_key=8}/' \
    -e 's/^  write_buffer_size=.*/  write_buffer_size=262144/' \
    -e 's/^  target_file_size_base=.*/  target_file_size_base=262144/' \
    -e 's/^  max_bytes_for_level_base=.*/  max_bytes_for_level_base=1048576/' \
    "$BASE" >"$out"
  grep -q '^  compression_manager={id=rockpool' "$out" ||
    sed -i 's/^\(\[CFOptions "default"\]\)$/\1\n  compression_manager={id=rockpool;max_idle_per_key=8}/' "$out"
  echo "$out"
}

printf '%-15s %4s %8s %8s %10s %10s %s\n' config rc reopens reports leases created verification
fail=0
for cfg in $CONFIGS; do
  db=$WORK/db_$cfg
  rm -rf "$db"
  opts=$(options_for "$cfg")
  rc=0
  "$DB_STRESS" --options_file="$opts" --compression_manager=none --db="$db" \
    --threads=4 --reopen=5 --ops_per_thread="$OPS" --max_key=30000 --column_families=4 \
    --clear_column_family_one_in=0 --flush_one_in=1000 --compact_range_one_in=2000 \
    --verify_db_one_in=5000 --destroy_db_initially=1 \
    --read_fault_one_in=0 --metadata_read_fault_one_in=0 --metadata_write_fault_one_in=0 \
    --write_fault_one_in=0 --open_metadata_write_fault_one_in=0 --open_read_fault_one_in=0 \
    --open_write_fault_one_in=0 --open_metadata_read_fault_one_in=0 \
    >"$WORK/$cfg.out" 2>&1 || rc=$?
  logs=$(cat "$db"/LOG* 2>/dev/null || true)
  reports=$(grep -c 'rockpool report: ' <<<"$logs" || true)
  leases=$(sed -n 's/.*| since_last: leases=\([0-9]*\) created=\([0-9]*\).*/\1/p' <<<"$logs" |
    awk '{s+=$1} END {print s+0}')
  created=$(sed -n 's/.*| since_last: leases=\([0-9]*\) created=\([0-9]*\).*/\2/p' <<<"$logs" |
    awk '{s+=$1} END {print s+0}')
  active=$(grep -c 'rockpool active: ' <<<"$logs" || true)
  verified=$(grep -c 'Verification successful' "$WORK/$cfg.out" || true)
  printf '%-15s %4s %8s %8s %10s %10s %s\n' "$cfg" "$rc" "$active" "$reports" "$leases" "$created" \
    "$verified x 'Verification successful'"
  if [ "$rc" -ne 0 ] || [ "$leases" -eq 0 ] || [ "$active" -eq 0 ]; then fail=1; fi
done
echo "work dir: $WORK"
exit $fail
