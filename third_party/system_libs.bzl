"""Local repositories for the Debian-packaged libraries rockpool builds on.

Each repository is a cc_library over a system library. Headers live in
/usr/include (already on the compiler's search path); link lines come from
pkg-config where the package ships a .pc file (Abseil has ~140 of them).

RocksDB defaults to Debian's 7.8.3. Setting ROCKPOOL_ROCKSDB_PREFIX (with
--repo_env) points @rocksdb at another installed RocksDB (include/ and lib/);
the generated :version target then tells the code whether that RocksDB has
the CompressionManager extension point (>= 10.4).
"""

def _pkg_config(ctx, modules):
    result = ctx.execute(["pkg-config", "--libs"] + modules)
    if result.return_code != 0:
        fail("pkg-config --libs %s failed: %s (run tools/setup.sh)" % (" ".join(modules), result.stderr))
    return result.stdout.strip().split(" ")

def _system_lib_impl(ctx):
    linkopts = list(ctx.attr.linkopts)
    if ctx.attr.pkg_config:
        linkopts = _pkg_config(ctx, ctx.attr.pkg_config) + linkopts
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    ctx.file("BUILD.bazel", """
cc_library(
    name = "{name}",
    linkopts = {linkopts},
    defines = {defines},
    visibility = ["//visibility:public"],
)
""".format(name = ctx.attr.target, linkopts = repr(linkopts), defines = repr(ctx.attr.defines)))

system_lib = repository_rule(
    implementation = _system_lib_impl,
    attrs = {
        "target": attr.string(mandatory = True),
        "pkg_config": attr.string_list(),
        "linkopts": attr.string_list(),
        "defines": attr.string_list(),
    },
)

_ROCKSDB_DEPS = ["-lsnappy", "-llz4", "-lbz2", "-lzstd", "-lz", "-lpthread", "-ldl"]

def _rocksdb_impl(ctx):
    prefix = ctx.os.environ.get("ROCKPOOL_ROCKSDB_PREFIX", "")
    ctx.file("WORKSPACE", "workspace(name = \"rocksdb\")\n")
    if prefix:
        include = ctx.path(prefix + "/include")
        if not include.get_child("rocksdb").get_child("db.h").exists:
            fail("ROCKPOOL_ROCKSDB_PREFIX=%s has no include/rocksdb/db.h" % prefix)
        ctx.symlink(include, "include")
        libdir = None
        for candidate in ["lib", "lib64", "lib/x86_64-linux-gnu", "."]:
            p = ctx.path(prefix + "/" + candidate + "/librocksdb.a")
            if p.exists:
                libdir = p
                break
        if not libdir:
            fail("ROCKPOOL_ROCKSDB_PREFIX=%s has no lib/librocksdb.a" % prefix)
        ctx.symlink(libdir, "librocksdb.a")
        native_api = include.get_child("rocksdb").get_child("advanced_compression.h").exists
        srcs = '["librocksdb.a"]'
        includes = '["include"]'
        hdrs = 'glob(["include/**/*.h"])'
        linkopts = _ROCKSDB_DEPS
        dynamic = ""
    else:
        native_api = ctx.path("/usr/include/rocksdb/advanced_compression.h").exists
        srcs = "[]"
        includes = "[]"
        hdrs = "[]"
        linkopts = ["-lrocksdb"]
        dynamic = "-lrocksdb"
    defines = ["ROCKPOOL_ROCKSDB_NATIVE_API=%d" % (1 if native_api else 0)]
    ctx.file("BUILD.bazel", """
cc_library(
    name = "rocksdb",
    srcs = {srcs},
    hdrs = {hdrs},
    includes = {includes},
    linkopts = {linkopts},
    defines = {defines},
    visibility = ["//visibility:public"],
)
""".format(srcs = srcs, hdrs = hdrs, includes = includes, linkopts = repr(linkopts), defines = repr(defines)))
    ctx.file("defs.bzl", "ROCKSDB_NATIVE_API = %s\nROCKSDB_PREFIX = %r\n" % (native_api, prefix))

rocksdb_repository = repository_rule(
    implementation = _rocksdb_impl,
    environ = ["ROCKPOOL_ROCKSDB_PREFIX"],
    local = True,
)

def system_libs():
    system_lib(name = "zstd", target = "zstd", pkg_config = ["libzstd"])
    system_lib(name = "zlib", target = "zlib", pkg_config = ["zlib"])
    system_lib(name = "xxhash", target = "xxhash", linkopts = ["-lxxhash"])
    system_lib(
        name = "absl",
        target = "absl",
        pkg_config = [
            "absl_base",
            "absl_synchronization",
            "absl_status",
            "absl_statusor",
            "absl_strings",
            "absl_str_format",
            "absl_time",
            "absl_flags",
            "absl_flags_parse",
            "absl_flags_usage",
            "absl_random_random",
            "absl_hash",
            "absl_cleanup",
        ],
    )
    system_lib(name = "gtest", target = "gtest", linkopts = ["-lgmock", "-lgtest", "-lpthread"])
    system_lib(name = "gtest_main", target = "gtest_main", linkopts = ["-lgmock", "-lgtest_main", "-lgtest", "-lpthread"])
    system_lib(name = "benchmark", target = "benchmark", linkopts = ["-lbenchmark", "-lpthread"])
    system_lib(name = "benchmark_main", target = "benchmark_main", linkopts = ["-lbenchmark_main", "-lbenchmark", "-lpthread"])
    rocksdb_repository(name = "rocksdb")
