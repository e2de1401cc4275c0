"""Targets that exist for one RocksDB release only.

Some tests assert what one release does (Debian 12's 7.8.3: its per-blob
contexts, its file layouts, its build identity) and have no meaning for
another (Debian 13's 9.10). Rather than pass vacuously there, they are
skipped: `bazel test //...` reports them SKIPPED (Bazel's incompatible
targets), and the BUILD file says why next to the test.

    cc_test(
        name = "...",
        target_compatible_with = for_rocksdb("7.8.3"),
    )
"""

load("@rocksdb//:defs.bzl", "ROCKSDB_VERSION")

def for_rocksdb(*releases):
    """[] when @rocksdb is one of `releases` ("X.Y.Z"), else a constraint no platform meets."""
    if ROCKSDB_VERSION in releases:
        return []
    return ["@rocksdb//:another_release"]
