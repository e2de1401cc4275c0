"""The native face exists only when @rocksdb has CompressionManager (>= 10.4)."""

load("@rocksdb//:defs.bzl", "ROCKSDB_NATIVE_API")

def native_face_targets():
    if not ROCKSDB_NATIVE_API:
        return
    native.cc_library(
        name = "native",
        srcs = [
            "pooled_compressors.cc",
            "pooled_decompressor.cc",
            "rockpool_compression_manager.cc",
        ],
        hdrs = [
            "pooled_compressors.h",
            "pooled_decompressor.h",
            "rockpool_compression_manager.h",
        ],
        alwayslink = 1,
        visibility = ["//visibility:public"],
        deps = [
            "//compression:block_codecs",
            "//rocksdb_plugin:options",
            "@absl",
            "@rocksdb",
            "@zlib",
            "@zstd",
        ],
    )
