"""The process matrix, fourth case: everyday programs under librockpool_interpose.so
with pooling on must behave exactly as without it and say nothing.

  gzip      GNU gzip (its own deflate, no zlib): gzip -c, -9, -dc
  python3   Debian's /usr/bin/python3 (links libz.so.1; its zlib module
            passes its own zalloc): compress/decompress at levels -1..9,
            compressobj with wbits -15/31/15/-9, zdict, Z_FILTERED, sync
            flushes and copies, RocksDB's per-4-KiB-block raw streams
            (python_zlib.py)
  zstd CLI  Debian's /usr/bin/zstd (libzstd linked in statically, not
            exported; libz.so.1 for --format=gzip with zlib's default
            allocators): the one process here whose zlib must be pooled

Asserts for each: exit 0, stdout byte-identical to the run without the
object, stderr exactly empty (ROCKPOOL_VERBOSE unset), the per-codec state in
the stats file (gzip: both unused; python3: zlib reported, zstd unused; zstd
CLI: zlib pooled with reuse, zstd not pooled); and that ROCKPOOL_VERBOSE=1
does make rockpool speak.

Usage: system_tools_test.py <librockpool_interpose.so> <python_zlib.py> [--asan]
"""

import os
import random
import re
import subprocess
import sys

from tests.rocksdb_plugin.legacy.processes import process_test_util as u

PYTHON = "/usr/bin/python3"  # Debian's, not a pyenv/venv one on PATH


def needs_libz(path):
    return "libz.so" in subprocess.run(["readelf", "-d", path], capture_output=True,
                                       text=True).stdout


def main(argv):
    if u.asan_build(argv):
        print("SKIPPED: built with ASan (an ASan interposer cannot be preloaded here)")
        return 0
    obj = os.path.abspath(argv[1])
    with open(argv[2], encoding="utf-8") as f:
        py_script = f.read()
    tmp = os.environ.get("TEST_TMPDIR", "/tmp")
    c = u.Checks("system_tools_test")

    # ~2.6 MB of deterministic text.
    r = random.Random(4)
    words = ["key", "value", "rocksdb", "block", "zlib", "gzip", "python", "level", "pool"]
    data = " ".join(r.choice(words) + str(r.randrange(1000)) for _ in range(300000)).encode()
    src = os.path.join(tmp, "input.txt")
    with open(src, "wb") as f:
        f.write(data)
    gz = os.path.join(tmp, "input.txt.gz")
    with open(gz, "wb") as f:
        f.write(subprocess.run(["gzip", "-c", "-n", src], capture_output=True, check=True).stdout)

    def same(argv_tool, what, stdin=None):
        stock = u.run(argv_tool, stdin=stdin)
        pooled = u.run(argv_tool, interpose=obj, stdin=stdin)
        c.same_output(stock, pooled, what)
        c.quiet(pooled, what)
        c.check(pooled.stats_line is not None, what + ": stats file written at exit",
                pooled.describe())
        return pooled

    # gzip: no zlib inside, nothing to pool.
    gzip = subprocess.run(["sh", "-c", "command -v gzip"], capture_output=True,
                          text=True).stdout.strip() or "/usr/bin/gzip"
    c.check(not needs_libz(gzip), "fixture: gzip does not link libz")
    for args in (["-c", "-n", src], ["-c", "-9", src], ["-dc", gz], ["-c", "-1"]):
        what = "gzip " + " ".join(os.path.basename(a) for a in args)
        p = same([gzip] + args, what, stdin=data if args == ["-c", "-1"] else None)
        for codec in u.CODECS:
            c.codec_state(p, codec, ("unused",), what=what)

    # python3's zlib module.
    c.check(needs_libz(os.path.realpath(PYTHON)), "fixture: %s links libz.so.1" % PYTHON)
    p = same([PYTHON, "-c", py_script, src], "python3 zlib")
    c.check(p.stdout.count(b"\n") == 14, "python3 zlib: 14 result lines", p.stdout.decode())
    c.codec_state(p, "zlib", u.STATES, what="python3 zlib (reported)")
    c.codec_state(p, "zstd", ("unused",), what="python3 zlib")

    # zstd's CLI writing and reading gzip through libz.so.1: zlib pooled.
    zstd = "/usr/bin/zstd"
    c.check(needs_libz(zstd), "fixture: %s links libz.so.1" % zstd)
    for args, pool in ((["-q", "-c", "--format=gzip", src, src], "deflate"),
                       (["-q", "-dc", gz, gz], "inflate")):
        what = "zstd " + " ".join(os.path.basename(a) for a in args)
        p = same([zstd] + args, what)
        c.codec_state(p, "zlib", ("pooled",), what=what)
        m = re.search(r" %s=(\d+)/(\d+)/(\d+)/" % pool, p.stats_line or "")
        c.check(m is not None and int(m.group(3)) >= 1,
                "%s: %s contexts reused (two files, one context)" % (what, pool),
                "stats line: %s" % p.stats_line)
        c.codec_state(p, "zstd", ("unused", "forwarded"), what=what + " (zstd not pooled)")

    # ROCKPOOL_VERBOSE=1: rockpool does say something.
    v = u.run([PYTHON, "-c", py_script, src], interpose=obj, env_extra={"ROCKPOOL_VERBOSE": "1"})
    c.check(v.returncode == 0 and b"rockpool" in v.stderr,
            "ROCKPOOL_VERBOSE=1: rockpool writes to stderr", v.describe())
    c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
