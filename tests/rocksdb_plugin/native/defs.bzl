"""Native-face tests: defined only when @rocksdb has CompressionManager."""

load("@rocksdb//:defs.bzl", "ROCKSDB_LINKAGE", "ROCKSDB_NATIVE_API", "ROCKSDB_PREFIX")

_WRAPPED = ["ZSTD_createCCtx", "ZSTD_createDCtx", "deflateInit2_", "inflateInit2_"]

def native_face_tests():
    # The built-in's calls are counted with --wrap: only a static librocksdb
    # is part of the test's own link.
    if not ROCKSDB_NATIVE_API or ROCKSDB_LINKAGE != "static":
        return
    native.cc_library(
        name = "library_counters",
        testonly = True,
        srcs = ["library_counters.cc"],
        hdrs = ["library_counters.h"],
        linkopts = ["-Wl,--wrap=" + f for f in _WRAPPED],
        deps = ["//compression:counting_allocator", "@zlib", "@zstd"],
        alwayslink = 1,
    )
    native.cc_test(
        name = "native_manager_test",
        size = "large",
        srcs = ["native_manager_test.cc"],
        env = {"ROCKPOOL_UPSTREAM_BIN": ROCKSDB_PREFIX + "/bin"},
        deps = [
            ":library_counters",
            "//compression:block_codecs",
            "//rocksdb_plugin/native",
            "//tests/compression:test_data",
            "//tools/sst:codec_decompressor",
            "//tools/sst:sst_reader",
            "@gtest_main",
            "@rocksdb",
        ],
    )

def native_plugin_tests():
    if not ROCKSDB_NATIVE_API:
        return

    # The option glue both faces share (//tests/rocksdb_plugin:option_glue_test),
    # here against the upstream RocksDB the native face runs on.
    native.cc_test(
        name = "option_glue_test",
        size = "small",
        srcs = ["//tests/rocksdb_plugin:option_glue_test.cc"],
        deps = [
            "//rocksdb_plugin:option_glue",
            "@absl",
            "@gtest_main",
            "@rocksdb",
        ],
    )
    # When librockpool_native.so registers (release and build).
    native.cc_test(
        name = "release_check_test",
        size = "small",
        srcs = ["release_check_test.cc"],
        deps = [
            "//rocksdb_plugin:built_for",
            "//rocksdb_plugin:built_for_line",
            "//rocksdb_plugin/native:release_check",
            "@absl",
            "@gtest_main",
            "@rocksdb",
            "@rocksdb//:build_identity",
        ],
    )
    native.cc_test(
        name = "log_report_test",
        size = "medium",
        srcs = ["log_report_test.cc"],
        deps = [
            "//rocksdb_plugin/native",
            "//tests/compression:test_data",
            "@gtest_main",
            "@rocksdb",
        ],
    )

    # The plugin build's objects (no RTTI, RocksDB's warnings) and entry
    # point, without load-time registration.
    native.cc_test(
        name = "plugin_test",
        size = "medium",
        srcs = ["plugin_test.cc"],
        deps = [
            "//rocksdb_plugin/native:plugin_nortti",
            "//tests/compression:test_data",
            "@gtest_main",
            "@rocksdb",
        ],
    )

    # rockpool.mk's source list against the Bazel build.
    native.genquery(
        name = "plugin_source_labels",
        expression = 'filter("\\.cc$", kind("source file", deps(//rocksdb_plugin/native:plugin)))',
        opts = ["--noimplicit_deps"],
        scope = ["//rocksdb_plugin/native:plugin"],
    )
    native.cc_test(
        name = "plugin_sources_test",
        size = "small",
        srcs = ["plugin_sources_test.cc"],
        data = [
            ":plugin_source_labels",
            "//rocksdb_plugin/native:plugin_dir",
        ],
        deps = ["@gtest_main"],
    )

def native_interpose_tests():
    if not ROCKSDB_NATIVE_API:
        return

    # The legacy face's interposition against upstream RocksDB, alone and
    # together with the native face. With a static librocksdb.a RocksDB's
    # codec calls bind to rockpool's definitions at link time; with a shared
    # librocksdb.so the linker exports them from the test binary (the
    # library refers to them), so the library's calls resolve to them at
    # load, as to a preloaded librockpool_interpose.so.
    native.cc_test(
        name = "interpose_test",
        size = "large",
        srcs = ["interpose_test.cc"],
        linkstatic = True,
        deps = [
            "//rocksdb_plugin:legacy",
            "//rocksdb_plugin/native",
            "//tests/compression:test_data",
            "@gtest_main",
            "@rocksdb",
        ],
    )

def native_shared_tests():
    """librockpool_native.so in programs on the install's shared librocksdb."""
    if not ROCKSDB_NATIVE_API or ROCKSDB_LINKAGE != "shared":
        return

    # Reaches RocksDB through rocksdb/c.h only, as bindings do.
    native.cc_binary(
        name = "c_api_fill",
        testonly = True,
        srcs = ["c_api/c_api_fill.c"],
        deps = ["@rocksdb"],
    )
    native.cc_binary(
        name = "data_blocks_equal",
        testonly = True,
        srcs = ["c_api/data_blocks_equal.cc"],
        deps = [
            "//compression:block_codecs",
            "//compression:compression_pools",
            "//tools/sst:codec_decompressor",
            "//tools/sst:sst_reader",
            "@absl",
        ],
    )
    native.cc_binary(
        name = "libother_release.so",
        testonly = True,
        srcs = ["c_api/other_release.cc"],
        linkshared = 1,
    )
    native.cc_binary(
        name = "libother_build.so",
        testonly = True,
        srcs = ["c_api/other_build.cc"],
        linkshared = 1,
        deps = ["@rocksdb"],
    )
    # Its start-up code and read-only data share one 64 KiB window, as the
    # legacy face's objects' do (the same test; it has no served block).
    native.py_test(
        name = "startup_layout_test",
        size = "small",
        srcs = ["//tests/rocksdb_plugin/legacy:startup_layout_test.py"],
        main = "//tests/rocksdb_plugin/legacy:startup_layout_test.py",
        args = [
            "$(rootpath //rocksdb_plugin/native:startup_order.txt)",
            "-",
            "$(rootpath //rocksdb_plugin/native:librockpool_native.so)",
        ],
        data = [
            "//rocksdb_plugin/native:librockpool_native.so",
            "//rocksdb_plugin/native:startup_order.txt",
        ],
        python_version = "PY3",
        tags = ["no_asan"],
    )
    native.sh_test(
        name = "c_api_test",
        size = "medium",
        srcs = ["c_api/c_api_test.sh"],
        args = [
            "$(location :c_api_fill)",
            "$(location :data_blocks_equal)",
            "$(location //rocksdb_plugin/native:librockpool_native.so)",
            "$(location :libother_release.so)",
            "$(location //rocksdb_plugin:librockpool_interpose.so)",
            "$(location :libother_build.so)",
        ],
        data = [
            ":c_api_fill",
            ":data_blocks_equal",
            ":libother_build.so",
            ":libother_release.so",
            "//rocksdb_plugin:librockpool_interpose.so",
            "//rocksdb_plugin/native:librockpool_native.so",
        ],
        env = {"ROCKPOOL_UPSTREAM_BIN": ROCKSDB_PREFIX + "/bin"},
    )
