"""Local repositories for the Debian-packaged libraries rockpool builds on.

Each repository is a cc_library over a system library. Headers live in
/usr/include (already on the compiler's search path); link lines come from
pkg-config where the package ships a .pc file (Abseil has ~140 of them).
One is not: @absl_pic compiles Debian's Abseil source (the installed
version, fetched by tools/setup.sh) for the preloaded objects alone.

RocksDB defaults to Debian's 7.8.3. Setting ROCKPOOL_ROCKSDB_PREFIX (with
--repo_env) points @rocksdb at another installed RocksDB (include/ and lib/):
its static lib/librocksdb.a (make install-static) when it has one, else its
lib/librocksdb.so (make install-shared), which programs then need at run
time (an rpath names the install). defs.bzl says which (ROCKSDB_LINKAGE:
"static", "shared", or "debian" for the default) and whether that RocksDB
has the CompressionManager extension point (>= 10.4). Its link dependencies are the
ones its build detected (liburing, jemalloc, gflags, ...), read from the
install's lib/pkgconfig/rocksdb.pc (make install-static) or a make_config.mk;
defs.bzl names them (ROCKSDB_LINK_DEPS) and where they came from.
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

# The headers alone (they live in /usr/include), for code that must not link
# the library: rockpool's interposer reaches zstd and zlib through functions
# it resolves at run time (compression/codec_library.h).
cc_library(
    name = "headers",
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

# Used only when an install records nothing (no rocksdb.pc, no make_config.mk).
_ROCKSDB_DEPS = ["-lsnappy", "-llz4", "-lbz2", "-lzstd", "-lz", "-lpthread", "-ldl"]

def _words(text):
    """Whitespace-separated words (Starlark's split needs a separator)."""
    return [w for w in text.replace("\t", " ").split(" ") if w]

def _link_flags(words):
    """The library flags of a link line: -l, -L, -pthread and -Wl, options.

    Left out: -lrocksdb (the archive is linked directly), linker choices
    such as -fuse-ld=lld (RocksDB's build picked its linker, ours is Bazel's)
    and -ljemalloc. A build that found jemalloc links it as the process's
    allocator, but RocksDB's code refers to jemalloc only weakly
    (port/jemalloc_helper.h: HasJemalloc() null-checks mallctl & co. at run
    time), and our programs measure allocation on glibc's malloc:
    sst_replay's malloc counter replaces malloc and free but not jemalloc's
    malloc_usable_size, which crashes on glibc's memory.
    """
    out = []
    for w in words:
        if w in ["-lrocksdb", "-ljemalloc"] or w in out:
            continue
        if w.startswith("-l") or w.startswith("-L") or w == "-pthread" or w.startswith("-Wl,"):
            out.append(w)
    return out

def _pc_link_flags(text):
    """Libs and Libs.private of a pkg-config file, its ${variables} expanded."""
    variables = {}
    words = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        for name, value in variables.items():
            line = line.replace("${%s}" % name, value)
        colon = line.find(":")
        eq = line.find("=")
        if eq > 0 and (colon < 0 or eq < colon):
            variables[line[:eq].strip()] = line[eq + 1:].strip()
        elif line.startswith("Libs:") or line.startswith("Libs.private:"):
            words += _words(line[colon + 1:])
    return _link_flags(words)

def _make_config_link_flags(text):
    """PLATFORM_LDFLAGS (and JEMALLOC_LIB) of RocksDB's make_config.mk."""
    words = []
    for line in text.splitlines():
        for key in ["PLATFORM_LDFLAGS=", "JEMALLOC_LIB=", "EXEC_LDFLAGS="]:
            if line.startswith(key):
                words += _words(line[len(key):])
    return _link_flags(words)

def _rocksdb_link_deps(ctx, prefix, libdir):
    """RocksDB's link dependencies as its build recorded them, and where from.

    make install-static writes lib/pkgconfig/rocksdb.pc (Libs.private holds
    what the build detected: liburing, jemalloc, gflags, ...); a build tree
    has make_config.mk. Only without either the fixed list is used.
    """
    candidates = [
        libdir.dirname.get_child("pkgconfig").get_child("rocksdb.pc"),
        libdir.dirname.get_child("rocksdb.pc"),
        ctx.path(prefix + "/make_config.mk"),
        libdir.dirname.get_child("make_config.mk"),
    ]
    for c in candidates:
        if c.exists:
            text = ctx.read(c)
            if c.basename.endswith(".pc"):
                return _pc_link_flags(text), str(c)
            return _make_config_link_flags(text), str(c)
    print("ROCKPOOL_ROCKSDB_PREFIX=%s records no link dependencies (no lib/pkgconfig/rocksdb.pc or make_config.mk): using %s" % (prefix, " ".join(_ROCKSDB_DEPS)))
    return _ROCKSDB_DEPS, "the fixed list in third_party/system_libs.bzl"

_BUILD_IDENTITY_H = """// Generated by third_party/system_libs.bzl.
// The `rocksdb_build_date:` build property of the shared librocksdb.so the
// objects link ("" for an install's static librocksdb.a): with the version
// from rocksdb/version.h, what librockpool_preload.so and
// librockpool_native.so are built for (rocksdb_plugin/built_for_line.h).
#define ROCKPOOL_ROCKSDB_BUILD_DATE "%s"
"""

def _build_date(ctx, library):
    """The library's `rocksdb_build_date:` string (util/build_version.cc), or "".

    RocksDB compiles its build properties into the library as plain strings;
    Debian's 7.8.3 says `rocksdb_build_date:2023-01-07 12:33:41`.
    """
    result = ctx.execute(["grep", "-a", "-o", "-m", "1", "rocksdb_build_date:[^[:cntrl:]]*", library])
    if result.return_code != 0:
        return ""
    lines = result.stdout.strip().split("\n")
    return lines[0][len("rocksdb_build_date:"):].replace("\\", "").replace("\"", "")

def _rocksdb_version(ctx, version_h):
    """"MAJOR.MINOR.PATCH" from rocksdb/version.h (the headers the code compiles against)."""
    parts = {}
    for line in ctx.read(version_h).splitlines():
        words = _words(line)
        if len(words) == 3 and words[0] == "#define" and words[1] in ["ROCKSDB_MAJOR", "ROCKSDB_MINOR", "ROCKSDB_PATCH"]:
            parts[words[1]] = words[2]
    if len(parts) != 3:
        fail("%s: no ROCKSDB_MAJOR/MINOR/PATCH" % version_h)
    return "%s.%s.%s" % (parts["ROCKSDB_MAJOR"], parts["ROCKSDB_MINOR"], parts["ROCKSDB_PATCH"])

def _find_in_install(ctx, prefix, name):
    """The path of `name` in the install's library directory, or None."""
    for candidate in ["lib", "lib64", "lib/x86_64-linux-gnu", "."]:
        p = ctx.path(prefix + "/" + candidate + "/" + name)
        if p.exists:
            return p
    return None

def _rocksdb_impl(ctx):
    prefix = ctx.os.environ.get("ROCKPOOL_ROCKSDB_PREFIX", "")
    ctx.file("WORKSPACE", "workspace(name = \"rocksdb\")\n")
    if prefix:
        include = ctx.path(prefix + "/include")
        if not include.get_child("rocksdb").get_child("db.h").exists:
            fail("ROCKPOOL_ROCKSDB_PREFIX=%s has no include/rocksdb/db.h" % prefix)
        ctx.symlink(include, "include")
        native_api = include.get_child("rocksdb").get_child("advanced_compression.h").exists
        includes = '["include"]'
        hdrs = 'glob(["include/**/*.h"])'
        libdir = _find_in_install(ctx, prefix, "librocksdb.a")
        shared = _find_in_install(ctx, prefix, "librocksdb.so")
        if libdir:
            ctx.symlink(libdir, "librocksdb.a")
            srcs = '["librocksdb.a"]'
            linkopts, deps_from = _rocksdb_link_deps(ctx, prefix, libdir)
            build_date = ""
            linkage = "static"
        elif shared:
            # make install-shared: the programs and objects link the
            # install's librocksdb.so (DT_NEEDED librocksdb.so.X.Y, found
            # through the rpath); its own dependencies are its DT_NEEDED.
            directory = str(shared.dirname)
            srcs = "[]"
            linkopts = ["-L" + directory, "-Wl,-rpath," + directory, "-lrocksdb"]
            deps_from = str(shared)
            build_date = _build_date(ctx, str(shared))
            linkage = "shared"
        else:
            fail("ROCKPOOL_ROCKSDB_PREFIX=%s has no lib/librocksdb.a or lib/librocksdb.so" % prefix)
    else:
        native_api = ctx.path("/usr/include/rocksdb/advanced_compression.h").exists
        srcs = "[]"
        includes = "[]"
        hdrs = "[]"
        linkopts = ["-lrocksdb"]
        deps_from = "librocksdb.so"
        build_date = _build_date(ctx, "/usr/lib/x86_64-linux-gnu/librocksdb.so")
        linkage = "debian"
    version = _rocksdb_version(ctx, str(include) + "/rocksdb/version.h" if prefix else "/usr/include/rocksdb/version.h")
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

# No platform has this constraint value: a target compatible only with it is
# skipped (third_party/rocksdb_release.bzl: tests of another RocksDB release).
constraint_setting(name = "release")

constraint_value(
    name = "another_release",
    constraint_setting = ":release",
    visibility = ["//visibility:public"],
)

# ROCKPOOL_ROCKSDB_BUILD_DATE: the shared librocksdb's build identity.
cc_library(
    name = "build_identity",
    hdrs = ["build_identity.h"],
    visibility = ["//visibility:public"],
)
""".format(srcs = srcs, hdrs = hdrs, includes = includes, linkopts = repr(linkopts), defines = repr(defines)))
    ctx.file("build_identity.h", _BUILD_IDENTITY_H % build_date)
    ctx.file("defs.bzl", "ROCKSDB_NATIVE_API = %s\nROCKSDB_PREFIX = %r\nROCKSDB_LINKAGE = %r\nROCKSDB_LINK_DEPS = %r\nROCKSDB_LINK_DEPS_FROM = %r\nROCKSDB_VERSION = %r\n" % (native_api, prefix, linkage, linkopts, deps_from, version))

rocksdb_repository = repository_rule(
    implementation = _rocksdb_impl,
    environ = ["ROCKPOOL_ROCKSDB_PREFIX"],
    local = True,
)

# The Abseil directories whose code the preloaded objects reach (Mutex,
# StrCat, Status, Time and what they call: Status carries a Cord, Mutex
# symbolizes its deadlock reports, Time reads cctz's zone data). crc/ is
# there from 2023's Abseil on (Cord's checksums); a directory the source
# tree lacks is left out.
_ABSL_PIC_DIRS = [
    "base",
    "container",
    "crc",
    "debugging",
    "hash",
    "numeric",
    "profiling",
    "status",
    "strings",
    "synchronization",
    "time",
    "types",
]

def _absl_source_version(ctx):
    """The Debian source version the installed libabsl-dev was built from."""
    result = ctx.execute(["dpkg-query", "-W", "-f=${source:Version}", "libabsl-dev"])
    if result.return_code != 0 or not result.stdout.strip():
        fail("@absl_pic: libabsl-dev is not installed (run tools/setup.sh)")
    version = result.stdout.strip()
    return version[version.find(":") + 1:]  # without an epoch, as setup.sh names the tree

def _inline_namespace(ctx, options_h):
    for line in ctx.read(options_h).splitlines():
        if line.startswith("#define ABSL_OPTION_INLINE_NAMESPACE_NAME "):
            return line.split(" ")[-1]
    return "(none)"

_ABSL_PIC_BUILD = """# Generated by third_party/system_libs.bzl (absl_pic) from
# {source}: Debian's abseil {version} with Debian's patches, inline namespace
# absl::{namespace}, its headers byte for byte those of /usr/include/absl.
cc_library(
    name = "absl",
    srcs = glob(
        {patterns},
        exclude = [
            # Tests, benchmarks and their helpers (gtest, gmock; the last
            # three are testonly libraries in Abseil's own BUILD files), and
            # the one program (print_hash_of.cc has a main).
            "**/*test*",
            "**/*mock*",
            "**/*benchmark*",
            "absl/base/internal/scoped_set_env.cc",
            "absl/debugging/internal/stack_consumption.cc",
            "absl/strings/internal/pow10_helper.cc",
            "**/print_hash_of.cc",
        ],
    ),
    # For the .cc files above alone, which find their headers in this tree
    # (the repository's root is on their quote include path, and cctz
    # includes its own by relative path): Bazel checks that every included
    # header is declared. They are the bytes of /usr/include/absl's (checked
    # when this repository is made), and no rockpool source depends on this
    # library, so rockpool's code still compiles against /usr/include.
    hdrs = glob(["absl/**/*.h", "absl/**/*.inc"]),
    # -w: Abseil's warnings are not ours (.bazelrc's -Werror would fail on
    # them). -fvisibility=hidden: its definitions stay inside whatever links
    # it, even an object without a version script, so a host's own Abseil
    # (same inline namespace: Debian's libabsl_*.so) never binds to them.
    copts = [
        "-w",
        "-O2",
        "-fvisibility=hidden",
        # As Debian builds it (g++ 12's default). With C++20, libstdc++
        # declares no extern std::string templates: the copy would carry
        # its own std::string members, and the preload object would export
        # those librocksdb.so refers to (push_back).
        "-std=c++17",
        # Every thread-local of the copy is defined in the object that links
        # it; the local-dynamic model keeps their names out of its dynamic
        # symbol table (global-dynamic's relocations put them there, as
        # local entries: cordz_next_sample).
        "-ftls-model=local-dynamic",
    ],
    visibility = ["//visibility:public"],
)

# An empty linker script for every libabsl_*.so of {libdir}: the
# objects link with -L to this directory (third_party/preloaded_absl.bzl),
# so @absl's -labsl_* flags find these and bring in nothing.
filegroup(
    name = "shared_library_stand_ins",
    srcs = glob(["shared_library_stand_ins/*.so"]),
    visibility = ["//visibility:public"],
)
"""

def _options_resolved_at_install(ctx, options_h):
    """Whether the installed options.h differs from the tree's only as an install resolves it.

    Abseil's CMake install rewrites each `#define ABSL_OPTION_USE_STD_<X> 2`
    (decide by the compiler's standard) to the 0 or 1 the library was built
    with; Debian 13's (20240722) says ABSL_OPTION_USE_STD_ORDERING 0 where
    the source says 2. Any other difference is a mismatch.
    """
    installed = ctx.read("/usr/include/absl/base/options.h").splitlines()
    tree = ctx.read(options_h).splitlines()
    if len(installed) != len(tree):
        return False
    for a, b in zip(installed, tree):
        if a == b:
            continue
        if not (a.startswith("#define ABSL_OPTION_USE_STD_") and b.startswith("#define ABSL_OPTION_USE_STD_")):
            return False
        if a.split(" ")[1] != b.split(" ")[1] or b.split(" ")[-1] != "2":
            return False
    return True

def _absl_pic_impl(ctx):
    cache = ctx.os.environ.get("ROCKPOOL_CACHE", "/var/cache/rockpool")
    version = _absl_source_version(ctx)
    source = "%s/src/abseil-%s" % (cache, version)
    options_h = ctx.path(source + "/absl/base/options.h")
    if not options_h.exists:
        fail(("@absl_pic: no Abseil source at %s (Debian's abseil %s, the version of the " +
              "installed libabsl-dev): run tools/setup.sh, which fetches it with " +
              "`apt-get source abseil=%s`") % (source, version, version))

    # The tree must be the one the installed headers come from: every header
    # of /usr/include/absl, byte for byte (Debian patches options.h to its
    # own inline namespace; another tree would be a link error, or two
    # definitions of one name).
    result = ctx.execute(["diff", "-rq", "/usr/include/absl", source + "/absl"])
    if result.return_code not in [0, 1]:
        fail("@absl_pic: diff -rq /usr/include/absl %s/absl failed: %s" % (source, result.stderr))
    options_resolved = _options_resolved_at_install(ctx, options_h)
    mismatches = [
        line
        for line in result.stdout.splitlines()
        if (line.startswith("Files ") or line.startswith("Only in /usr/include/absl")) and
           not (options_resolved and line.startswith("Files /usr/include/absl/base/options.h "))
    ]
    if mismatches:
        fail(("@absl_pic: %s does not match the installed headers (inline namespace %s in " +
              "/usr/include, %s in the tree); remove it and run tools/setup.sh:\n%s") % (
            source,
            _inline_namespace(ctx, "/usr/include/absl/base/options.h"),
            _inline_namespace(ctx, options_h),
            "\n".join(mismatches[:20]),
        ))

    # The tree's absl/ as real directories of symlinks, less Abseil's own
    # BUILD files: each would make its directory a package of its own, out
    # of reach of the glob below.
    for command in [
        ["cp", "-rs", source + "/absl", "absl"],
        ["find", "absl", "(", "-name", "BUILD.bazel", "-o", "-name", "BUILD", ")", "-delete"],
    ]:
        result = ctx.execute(command)
        if result.return_code != 0:
            fail("@absl_pic: %s failed: %s" % (" ".join(command), result.stderr))
    if options_resolved:
        # The installed options.h, with the choices Debian's libraries were
        # compiled with.
        ctx.delete("absl/base/options.h")
        ctx.symlink("/usr/include/absl/base/options.h", "absl/base/options.h")
    dirs = [d for d in _ABSL_PIC_DIRS if ctx.path(source + "/absl/" + d).exists]

    libdir = ctx.execute(["pkg-config", "--variable=libdir", "absl_base"]).stdout.strip()
    shared = ctx.execute(["find", libdir or "/usr/lib", "-maxdepth", "1", "-name", "libabsl_*.so"])
    names = [line.split("/")[-1] for line in shared.stdout.splitlines() if line]
    if not names:
        fail("@absl_pic: no libabsl_*.so in %s (libabsl-dev; run tools/setup.sh)" % libdir)
    for name in names:
        ctx.file(
            "shared_library_stand_ins/" + name,
            "/* Stands in for %s/%s: links nothing (third_party/preloaded_absl.bzl). */\n" % (libdir, name),
            executable = False,
        )
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    ctx.file("BUILD.bazel", _ABSL_PIC_BUILD.format(
        source = source,
        version = version,
        namespace = _inline_namespace(ctx, options_h),
        patterns = repr(["absl/%s/**/*.cc" % d for d in dirs]),
        libdir = libdir,
    ))

# Abseil compiled from Debian's source of the installed version, as PIC, for
# the objects that are preloaded into other programs: they link it
# statically instead of Debian's 25 shared libabsl_*.so, whose loading and
# relocation cost every host process about 1 MB of RSS (how they link it:
# third_party/preloaded_absl.bzl). Debian's libabsl_*.a cannot serve: they
# are not PIC. Everything else links @absl.
# The tree is fetched outside the clone by tools/setup.sh; local: the
# installed version is read again at each fetch, so an upgraded libabsl-dev
# points at its own tree.
absl_pic = repository_rule(
    implementation = _absl_pic_impl,
    environ = ["ROCKPOOL_CACHE"],
    local = True,
)

def system_libs():
    system_lib(name = "zstd", target = "zstd", pkg_config = ["libzstd"])
    system_lib(name = "zlib", target = "zlib", pkg_config = ["zlib"])
    system_lib(name = "lz4", target = "lz4", pkg_config = ["liblz4"])
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
    absl_pic(name = "absl_pic")
    system_lib(name = "gtest", target = "gtest", linkopts = ["-lgmock", "-lgtest", "-lpthread"])
    system_lib(name = "gtest_main", target = "gtest_main", linkopts = ["-lgmock", "-lgtest_main", "-lgtest", "-lpthread"])
    system_lib(name = "benchmark", target = "benchmark", linkopts = ["-lbenchmark", "-lpthread"])
    system_lib(name = "benchmark_main", target = "benchmark_main", linkopts = ["-lbenchmark_main", "-lbenchmark", "-lpthread"])
    rocksdb_repository(name = "rocksdb")
