"""The process matrix, first case: an executable that links zlib and zstd statically
and exports them (static_codec_exe), with a shared library in the process
linked against libz.so.1/libzstd.so.1 (libcodec_user.so), both running
RocksDB 7.8.3's per-block codec calls, under librockpool_interpose.so.

Asserts: the fixture is what it claims (no DT_NEEDED on libz/libzstd, both
codecs' context functions exported; without the object every call of the
library binds to the executable's copy); with the object preloaded and
pooling on: exit 0, stdout (digests of every compressed byte, the bindings)
byte-identical to the run without it, nothing on stderr, and the stats file
reports both codecs forwarded, naming the executable. Also preloaded with
pooling off.

Usage: static_codec_exe_test.py <librockpool_interpose.so> <static_codec_exe> [--asan]
"""

import os
import subprocess
import sys

from tests.rocksdb_plugin.legacy.processes import process_test_util as u


def main(argv):
    if u.asan_build(argv):
        print("SKIPPED: built with ASan (an ASan interposer cannot be preloaded here)")
        return 0
    obj, exe = (os.path.abspath(a) for a in argv[1:3])
    c = u.Checks("static_codec_exe_test")
    name = os.path.basename(exe)

    dyn = subprocess.run(["readelf", "-d", exe], capture_output=True, text=True).stdout
    c.check("libz.so" not in dyn and "libzstd.so" not in dyn and "libcodec_user.so" in dyn,
            "fixture: the executable needs libcodec_user.so, not libz/libzstd", dyn)
    syms = subprocess.run(["nm", "-D", "--defined-only", exe], capture_output=True,
                          text=True).stdout.split()
    for s in ("deflateInit2_", "deflateReset", "inflateInit2_", "ZSTD_createCCtx",
              "ZSTD_compress_usingDict", "ZSTD_createDCtx"):
        c.check(s in syms, "fixture: the executable exports " + s)

    stock = u.run([exe])
    out = stock.stdout.decode(errors="replace")
    c.check("bindings: all 13 reach the executable's copy" in out,
            "fixture: without the object, the library's codec calls bind to the executable",
            out)
    lines = {l.split(" ", 1)[0]: l.split(" ", 1)[1] for l in out.splitlines() if " " in l}
    c.check(lines.get("exe") is not None and lines.get("exe") == lines.get("lib"),
            "fixture: executable and library compress the same bytes", out)

    pooled = u.run([exe], interpose=obj)
    c.same_output(stock, pooled, "pooling on")
    c.check("bindings: all 13 reach the executable's copy" in pooled.stdout.decode(errors="replace"),
            "pooling on: the library's codec calls still reach the executable's copy",
            pooled.stdout.decode(errors="replace"))
    c.quiet(pooled, "pooling on")
    c.check(pooled.stats_line is not None, "pooling on: stats file written at exit",
            pooled.describe())
    for codec in u.CODECS:
        c.codec_state(pooled, codec, ("forwarded",), reason_contains=[name],
                      what="pooling on")

    off = u.run([exe], interpose=obj, options=None)
    c.same_output(stock, off, "preloaded, pooling off")
    c.quiet(off, "preloaded, pooling off")
    c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
