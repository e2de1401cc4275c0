"""The native face exists only when @rocksdb has CompressionManager (>= 10.4)."""

load("@rocksdb//:defs.bzl", "ROCKSDB_LINKAGE", "ROCKSDB_NATIVE_API")
load("//third_party:preloaded_absl.bzl", "PRELOADED_ABSL_DEPS", "PRELOADED_ABSL_LINKER_INPUTS", "PRELOADED_ABSL_LINKOPTS")

_SRCS = [
    "log_report.cc",
    "pooled_compressors.cc",
    "pooled_decompressor.cc",
    "rockpool_compression_manager.cc",
]

_HDRS = [
    "compressor_api.h",
    "log_report.h",
    "pooled_compressors.h",
    "pooled_decompressor.h",
    "rockpool_compression_manager.h",
]

_DEPS = [
    "//compression:block_codecs",
    "//compression:block_format",
    "//compression:context_pool",
    "//rocksdb_plugin:option_glue",
    "//rocksdb_plugin:options",
    "//rocksdb_plugin:own_file",
    "//rocksdb_plugin:report",
    "//rocksdb_plugin:verbose",
    "@absl",
    "@rocksdb",
    "@zlib",
    "@zstd",
]

# The flags a RocksDB make release build compiles plugin sources with
# (Makefile: WARNING_FLAGS, and -fno-rtti unless USE_RTTI=1).
ROCKSDB_PLUGIN_COPTS = [
    "-fno-rtti",
    "-W",
    "-Wextra",
    "-Wall",
    "-Wsign-compare",
    "-Wshadow",
    "-Wunused-parameter",
    "-Werror",
]

def native_face_targets():
    if not ROCKSDB_NATIVE_API:
        return

    # The compression manager, its compressors, decompressor and LOG lines.
    native.cc_library(
        name = "core",
        srcs = _SRCS,
        hdrs = _HDRS,
        deps = _DEPS,
    )

    # For programs that link upstream RocksDB with Bazel: registers
    # compression_manager=rockpool with ObjectLibrary::Default() at load time.
    # Public: users' programs depend on it (README.md); the rest of this
    # package is visible only to what uses it.
    native.cc_library(
        name = "native",
        srcs = ["load_registration.cc"],
        alwayslink = 1,
        visibility = ["//visibility:public"],
        deps = [":core"],
    )

    # Whether the running RocksDB is the release and build this code was
    # compiled against.
    native.cc_library(
        name = "release_check",
        srcs = ["release_check.cc"],
        hdrs = ["release_check.h"],
        visibility = ["//rocksdb_plugin:tests"],
        deps = [
            "//rocksdb_plugin:built_for",
            "//rocksdb_plugin:built_for_line",
            "//rocksdb_plugin:release_check",
            "@absl",
        ],
    )

    # Registration at load time after that check, for
    # librockpool_native.so.
    native.cc_library(
        name = "checked_registration",
        srcs = ["checked_registration.cc"],
        alwayslink = 1,
        deps = [
            ":core",
            ":release_check",
            "//rocksdb_plugin:verbose",
            "@absl",
            "@rocksdb",
        ],
    )

    # LD_PRELOAD=librockpool_native.so for programs on a prebuilt shared
    # librocksdb of the release it is built for (an install made with
    # `make install-shared`): DT_NEEDED librocksdb.so.X.Y, found through the
    # install's rpath. Only defined when @rocksdb is such an install.
    # Abseil is linked in, as in the legacy face's preload objects
    # (third_party/preloaded_absl.bzl): no libabsl_*.so in the host.
    # What it runs at load (startup_order.txt: the constructors, the release
    # check, the registration) is placed after the 64 KiB-aligned start-up
    # anchor (rocksdb_plugin/layout_anchors.cc), in segments aligned to 64
    # KiB, so a process it never serves keeps one window of its text
    # resident rather than all of it (+0.30-0.36 MiB measured when spread).
    # The list is made by tests/rocksdb_plugin/legacy/measure/code_order.sh
    # --native PREFIX.
    if ROCKSDB_LINKAGE == "shared":
        native.cc_binary(
            name = "librockpool_native.so",
            additional_linker_inputs = ["startup_order.txt"] + PRELOADED_ABSL_LINKER_INPUTS,
            linkopts = [
                # No library it does not use.
                "-Wl,--as-needed",
                "-Wl,--section-ordering-file=$(location startup_order.txt)",
                "-Wl,-z,max-page-size=0x10000",
            ] + PRELOADED_ABSL_LINKOPTS,
            linkshared = 1,
            visibility = ["//rocksdb_plugin:tests"],
            deps = [
                ":checked_registration",
                "//rocksdb_plugin:layout_anchors",
            ] + PRELOADED_ABSL_DEPS,  # Abseil's last
        )

    # What a RocksDB built with ROCKSDB_PLUGINS=rockpool links
    # (rockpool/rockpool.mk): the core and the plugin entry point
    # RegisterRockpoolPlugin, nothing registered at load time. Public: a
    # RocksDB tree's Bazel build may depend on it.
    native.cc_library(
        name = "plugin",
        srcs = ["rockpool/rockpool_plugin.cc"],
        visibility = ["//visibility:public"],
        deps = [":core"],
    )

    # The same sources compiled as RocksDB's make release build compiles
    # them (no RTTI, RocksDB's warnings, -Werror); linked by
    # //tests/rocksdb_plugin/native:plugin_test.
    native.cc_library(
        name = "plugin_nortti",
        srcs = _SRCS + ["rockpool/rockpool_plugin.cc"],
        hdrs = _HDRS,
        copts = ROCKSDB_PLUGIN_COPTS,
        visibility = ["//rocksdb_plugin:tests"],
        deps = _DEPS,
    )

    # The plugin directory's own files (without what a RocksDB build made
    # there: objects, and the src/ links of link_sources.sh).
    native.filegroup(
        name = "plugin_dir",
        srcs = native.glob(
            ["rockpool/**"],
            exclude = ["rockpool/**/*.o", "rockpool/**/*.d", "rockpool/src/**"],
        ),
        visibility = ["//rocksdb_plugin:tests"],
    )
