"""The zstd, zlib and lz4 functions the legacy face defines: one list per codec.

Everything that names them is made from these lists: the
--export-dynamic-symbol flags of :interpose and the version scripts of the
preload objects (rocksdb_plugin/legacy/BUILD.bazel), and for the C++ side a
generated header, entry_points.h, with one X-macro per codec (the routes'
and the interposition check's required names, the tests' expected exports).
The definitions themselves are in interpose_zstd.cc, interpose_zlib.cc and
interpose_lz4.cc.

Each entry is (name, required): required marks the entry points whose first
global definition must be rockpool's for the codec to be served at all (an
executable's own copy otherwise wins every caller's binding, and rockpool
never sees the calls).
"""

ZSTD_ENTRY_POINTS = [
    ("ZSTD_createCCtx", True),
    ("ZSTD_freeCCtx", True),
    ("ZSTD_createDCtx", True),
    ("ZSTD_freeDCtx", True),
    ("ZSTD_CCtx_setParameter", False),
    ("ZSTD_CCtx_refThreadPool", False),
    ("ZSTD_compress_usingDict", False),
    ("ZSTD_compress_usingCDict", False),
    ("ZDICT_trainFromBuffer", False),
    ("ZDICT_finalizeDictionary", False),
]

ZLIB_ENTRY_POINTS = [
    ("deflateInit_", False),
    ("deflateInit2_", True),
    ("deflateEnd", True),
    ("deflateParams", False),
    ("deflateSetHeader", False),
    ("deflateCopy", False),
    ("inflateInit_", False),
    ("inflateInit2_", True),
    ("inflateEnd", True),
    ("inflateReset2", False),
    ("inflateValidate", False),
    ("inflateCopy", False),
]

# RocksDB's per-block LZ4 streams. The decode stream (LZ4_createStreamDecode,
# 32 bytes of pointers per block read) is not pooled: a lease would cost about
# what the calloc does.
LZ4_ENTRY_POINTS = [
    ("LZ4_createStream", True),
    ("LZ4_freeStream", True),
    ("LZ4_createStreamHC", True),
    ("LZ4_freeStreamHC", True),
    # RocksDB resets every new LZ4HC stream to its level: on a pooled stream
    # nobody has used yet, the 256 KiB clear it would repeat is skipped.
    ("LZ4_resetStreamHC", False),
]

# Every name, zstd's first.
ENTRY_POINT_NAMES = [name for name, _ in ZSTD_ENTRY_POINTS + ZLIB_ENTRY_POINTS + LZ4_ENTRY_POINTS]

def _write(name, out, text):
    native.genrule(
        name = name,
        outs = [out],
        cmd = "cat > $@ <<'ROCKPOOL_EOF'\n" + text + "ROCKPOOL_EOF\n",
    )

def version_script(name, out, comment, extra = []):
    """A linker version script exporting the entry points (plus `extra`,
    each a (comment, symbol) pair) and nothing else."""
    lines = ["/* " + comment + " */", "{", "  global:"]
    lines += ["    %s;" % n for n in ENTRY_POINT_NAMES]
    for note, symbol in extra:
        lines += ["    /* " + note + " */", "    %s;" % symbol]
    lines += ["  local:", "    *;", "};"]
    _write(name, out, "\n".join(lines) + "\n")

def _x_macro(macro, entries, required_only):
    calls = ["X(%s)" % n for n, required in entries if required or not required_only]
    return "#define %s(X) %s" % (macro, " ".join(calls))

def entry_points_header(name, out):
    """The C++ view of the lists: ROCKPOOL_{ZSTD,ZLIB}_ENTRY_POINTS(X) over
    every name, ROCKPOOL_{ZSTD,ZLIB}_REQUIRED_ENTRY_POINTS(X) over the
    required ones."""
    lines = [
        "// Generated from rocksdb_plugin/legacy/entry_points.bzl: edit the lists there.",
        "#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_ENTRY_POINTS_H_",
        "#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_ENTRY_POINTS_H_",
        _x_macro("ROCKPOOL_ZSTD_ENTRY_POINTS", ZSTD_ENTRY_POINTS, False),
        _x_macro("ROCKPOOL_ZLIB_ENTRY_POINTS", ZLIB_ENTRY_POINTS, False),
        _x_macro("ROCKPOOL_ZSTD_REQUIRED_ENTRY_POINTS", ZSTD_ENTRY_POINTS, True),
        _x_macro("ROCKPOOL_ZLIB_REQUIRED_ENTRY_POINTS", ZLIB_ENTRY_POINTS, True),
        _x_macro("ROCKPOOL_LZ4_ENTRY_POINTS", LZ4_ENTRY_POINTS, False),
        _x_macro("ROCKPOOL_LZ4_REQUIRED_ENTRY_POINTS", LZ4_ENTRY_POINTS, True),
        "#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_ENTRY_POINTS_H_",
    ]
    _write(name, out, "\n".join(lines) + "\n")
