# shellcheck shell=bash
# The configurations tests/db_stress/run.sh runs (each stock, then pooled),
# and the crash-recovery settings; sourced by run.sh after its options are
# parsed ($long, $scale). `run.sh --list` prints them with their exact flags.

# Flags every run shares. Each one is here for a reason:
COMMON=(
  --threads=4
  # Small key space: the final verification reads every key of every CF.
  --max_key=100000
  # db_stress defaults to 10 column families and 10 reopens; configurations
  # that want them ask.
  --column_families=1
  --reopen=0
  # > 0 crashes db_stress 7.8.3 itself, stock too; db_crashtest.py keeps 0.
  --clear_column_family_one_in=0
  # Defaults to 1000 (read faults on everywhere); only the faults
  # configuration injects, so a failure elsewhere is never a fault's.
  --read_fault_one_in=0
  # Small memtables and files, a small L1: many flushes and compactions, i.e.
  # many table builders (one ZSTD_CCtx each) and deflate/inflate streams.
  --write_buffer_size=262144
  --target_file_size_base=262144
  --max_bytes_for_level_base=1048576
  # Values of 32..96 bytes (db_crashtest.py's multiplier), compressible.
  --value_size_mult=32
  # A small block cache: reads go to the files, through decompression.
  --cache_size=1048576
  # Checksums on every read; every new SST re-read after it is written.
  --verify_checksum=1
  --paranoid_file_checks=1
)

# name|ops per thread (scaled)|flags. The op counts hold each run to roughly
# 5-15 s here; BlobDB runs fewer (every iterator step reads and decompresses a
# blob, so they are the slowest per op).
CONFIGS=(
  "zlib|50000|--compression_type=zlib"
  "zstd_dict|50000|--compression_type=zstd --compression_max_dict_bytes=16384 --compression_zstd_max_train_bytes=65536"
  "zstd_zlib_bottom|50000|--compression_type=zstd --bottommost_compression_type=zlib"
  # LZ4 and LZ4HC: a new LZ4_stream_t / LZ4_streamHC_t per block in stock
  # 7.8.3. db_stress sets only compression_opts, which the bottommost level
  # then uses too: lz4hc_dict_bottom is an LZ4HC bottommost level with a
  # dictionary (LZ4_loadDictHC on every pooled stream).
  "lz4|50000|--compression_type=lz4"
  "lz4hc|40000|--compression_type=lz4hc"
  "lz4hc_dict_bottom|40000|--compression_type=lz4 --bottommost_compression_type=lz4hc --compression_max_dict_bytes=16384"
  # db_crashtest.py 7.8.3 leaves this at 1 ("the feature is not stable"); it
  # is kept while it passes stock (and excluded by the rule below if not).
  "parallel|50000|--compression_type=zstd --compression_parallel_threads=4"
  "cf4|40000|--compression_type=zlib --column_families=4"
  "reopen|50000|--compression_type=zstd --bottommost_compression_type=zlib --reopen=5"
  "blob_zstd|20000|--compression_type=zstd --enable_blob_files=1 --min_blob_size=32 --blob_file_size=1048576 --blob_compression_type=zstd --enable_blob_garbage_collection=1 --blob_garbage_collection_age_cutoff=0.5"
  "blob_zlib|20000|--compression_type=zlib --enable_blob_files=1 --min_blob_size=32 --blob_file_size=1048576 --blob_compression_type=zlib --enable_blob_garbage_collection=1 --blob_garbage_collection_age_cutoff=0.5"
  # A block cache smaller than the working set, so blocks go to and come back
  # from the compressed secondary cache (one codec context per entry in
  # 7.8.3). The URI is parsed by SecondaryCache::CreateFromString (cache.cc).
  # --statistics=1 prints the secondary cache's hit count (sec_cache_hits=N),
  # the proof that it was used.
  "secondary_cache|40000|--compression_type=zstd --cache_size=262144 --statistics=1 --secondary_cache_uri=compressed_secondary_cache://capacity=8388608;compression_type=kZSTD"
  "secondary_cache_zlib|40000|--compression_type=zlib --cache_size=262144 --statistics=1 --secondary_cache_uri=compressed_secondary_cache://capacity=8388608;compression_type=kZlibCompression"
  # Read faults (in Get/MultiGet, which alone arm them in 7.8.3; more reads
  # and a smaller cache so they reach the files) and open-time read, write and
  # metadata-write faults (armed only while DB::Open runs on a reopen; a failed
  # open is retried). With the default --seed the open faults' random sequence
  # (reset to the seed on every reopen) never fires at these rates; --seed=1
  # does: about one failed open per reopen, counted as faults=N.
  "faults|40000|--compression_type=zlib --bottommost_compression_type=zstd --cache_size=262144 --readpercent=40 --prefixpercent=0 --writepercent=35 --delpercent=15 --iterpercent=10 --read_fault_one_in=8 --reopen=5 --seed=1 --open_read_fault_one_in=8 --open_write_fault_one_in=4 --open_metadata_write_fault_one_in=4"
  # Write faults while running: in 7.8.3 a retryable write error puts the DB in
  # background-error recovery, the next foreground write returns "Result
  # incomplete" and db_stress terminates ("put or merge error"), stock too;
  # db_crashtest.py 7.8.3 never sets it. Kept so the exclusion shows in every
  # run (it fails within a second or two).
  "write_faults|20000|--compression_type=zstd --write_fault_one_in=8"
)
# What differs between Debian's releases, all here: the release of the
# installed librocksdb-dev, which db_stress is built from (build.sh).
ROCKSDB_RELEASE=$(dpkg-query -W -f='${source:Version}' librocksdb-dev 2>/dev/null || true)
ROCKSDB_RELEASE=${ROCKSDB_RELEASE#*:}
ROCKSDB_RELEASE=${ROCKSDB_RELEASE%-*}
# config_without <name> [<flag>]: drops the configuration, or one flag of it.
config_without() {
  local i name rest
  for i in "${!CONFIGS[@]}"; do
    name=${CONFIGS[i]%%|*}
    [[ $name == "$1" ]] || continue
    if (($# == 1)); then
      unset 'CONFIGS[i]'
    else
      rest=${CONFIGS[i]#*|}
      CONFIGS[i]="$name|${rest//" $2"/}"
    fi
  done
  CONFIGS=("${CONFIGS[@]}")
}
case $ROCKSDB_RELEASE in
  7.*) ;;
  *)
    # 9.x's db_stress injects metadata read/write faults (1 in 1000) unless
    # told not to; off, as the read faults, so that only the faults
    # configuration injects. 7.8.3 has no such flags.
    COMMON+=(--metadata_read_fault_one_in=0 --metadata_write_fault_one_in=0)
    # 9.10 arms read faults in background reads too: the re-read of a new
    # SST (paranoid_file_checks) fails, a retryable background error, and
    # the DB stalls resuming (stock: no progress in 180 s). The faults
    # configuration keeps its open-time faults on 5 reopens.
    config_without faults --read_fault_one_in=8
    # 9.10 takes an injected write error as expected and goes on: the run
    # ends in a second having written no SST, so a pooled run has nothing
    # to pool (leases=0).
    config_without write_faults
    ;;
esac

# Crash recovery, as db_crashtest.py's blackbox mode does it: runs with
# --expected_values_dir killed by SIGKILL mid-run; each next run verifies the
# reopened DB against the expected state before it operates; a final bounded
# run verifies at start and at end. Stock: 1 kill; pooled: 3 kills.
CRASH_FLAGS="--compression_type=zstd --bottommost_compression_type=zlib"
CRASH_VERIFY_OPS=20000
crash_kills_stock=1
crash_kills_pooled=3
kill_after=(6 8 10)  # seconds; varied so kills land in different phases
if ((long)); then
  crash_kills_stock=3
  crash_kills_pooled=10
  kill_after=(30)
fi

reopen_scale=1
((long)) && reopen_scale=4

# list_configs: every configuration and its exact flags (run.sh --list).
list_configs() {
  local c name ops flags
  printf 'common: %s\n' "${COMMON[*]}"
  for c in "${CONFIGS[@]}"; do
    IFS='|' read -r name ops flags <<<"$c"
    if [[ $flags =~ --reopen=([0-9]+) ]]; then
      flags=${flags/${BASH_REMATCH[0]}/--reopen=$((BASH_REMATCH[1] * reopen_scale))}
    fi
    printf '%s: --ops_per_thread=%s %s\n' "$name" "$((ops * scale))" "$flags"
  done
  printf 'crash: %s (killed runs: --ops_per_thread=100000000; verify: --ops_per_thread=%s)\n' \
    "$CRASH_FLAGS" "$((CRASH_VERIFY_OPS * scale))"
}
