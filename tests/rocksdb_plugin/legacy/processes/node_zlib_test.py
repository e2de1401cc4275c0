"""The process matrix, third case: node (nodesource 20.x, /usr/bin/node) carries its
own zlib and exports it (deflateReset, inflateInit2_, ... are defined by the
executable). Under librockpool_interpose.so with pooling on, `node -e` runs
gzip/gunzip, deflate/inflate and deflateRaw/inflateRaw round trips over 4 MiB
(levels 1, 6, 9), RocksDB's per-4-KiB-block raw streams and asynchronous
gzip jobs (node_zlib.js).

Asserts: exit 0 (today: SIGSEGV while rockpool loads), stdout (SHA-256 of
every compressed output) identical to the run without the object, nothing on
stderr, and the stats file reports zlib forwarded naming node (node has no
zstd: zstd is not pooled). Also preloaded with pooling off.
Skips (exit 0, with a message) if node is not installed.

Usage: node_zlib_test.py <librockpool_interpose.so> <node_zlib.js> [--asan]
"""

import os
import shutil
import subprocess
import sys

from tests.rocksdb_plugin.legacy.processes import process_test_util as u


def main(argv):
    if u.asan_build(argv):
        print("SKIPPED: built with ASan (an ASan interposer cannot be preloaded here)")
        return 0
    node = shutil.which("node") or ("/usr/bin/node" if os.path.exists("/usr/bin/node") else None)
    if node is None:
        print("SKIPPED: node is not installed (nodesource 20.x: /usr/bin/node)")
        return 0
    node = os.path.realpath(node)
    obj = os.path.abspath(argv[1])
    with open(argv[2], encoding="utf-8") as f:
        script = f.read()
    c = u.Checks("node_zlib_test")
    print("node: %s %s" % (node, subprocess.run([node, "--version"], capture_output=True,
                                                text=True).stdout.strip()))

    syms = subprocess.run(["nm", "-D", "--defined-only", node], capture_output=True,
                          text=True).stdout.split()
    c.check("deflateReset" in syms and "inflateInit2_" in syms,
            "fixture: node defines and exports zlib itself (deflateReset, inflateInit2_)")

    argv_node = [node, "-e", script]
    stock = u.run(argv_node)
    c.check(stock.stdout.count(b"\n") == 11,
            "fixture: 11 result lines without the object", stock.stdout.decode(errors="replace"))
    pooled = u.run(argv_node, interpose=obj)
    c.same_output(stock, pooled, "pooling on")
    c.quiet(pooled, "pooling on")
    c.check(pooled.stats_line is not None, "pooling on: stats file written at exit",
            pooled.describe())
    c.codec_state(pooled, "zlib", ("forwarded",), reason_contains=[os.path.basename(node)],
                  what="pooling on")
    c.codec_state(pooled, "zstd", ("unused", "forwarded"), what="pooling on (node has no zstd)")

    off = u.run(argv_node, interpose=obj, options=None)
    c.same_output(stock, off, "preloaded, pooling off")
    c.quiet(off, "preloaded, pooling off")
    c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
