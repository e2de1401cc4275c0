"""The native read-path benchmark exists only when @rocksdb has CompressionManager (>= 10.4)."""

load("@rocksdb//:defs.bzl", "ROCKSDB_NATIVE_API")

def native_bench_targets():
    if not ROCKSDB_NATIVE_API:
        return

    # Random Gets through a 1 MiB block cache, built-in manager (stock) vs
    # compression_manager=rockpool (pooled); measure_read_path.sh alternates
    # the processes and runs callgrind.
    native.cc_binary(
        name = "native_read_bench",
        srcs = ["native_read_bench.cc"],
        deps = [
            "//compression:compression_pools",
            "//rocksdb_plugin/native",
            "@rocksdb",
        ],
    )
