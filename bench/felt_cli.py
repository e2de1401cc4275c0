"""Command line of the felt-cost benchmark (bench/felt_cost.py): flags,
their validation, and the one-line errors (exit 2) for bad input.
"""

import argparse
import os
import sys

from bench import felt_dbbench as dbb
from bench import felt_myrocks as myr

QUICK_SCALE = 0.05
QUICK_WORKLOADS = "sst_zstd,read_zlib"
QUICK_ALLOCATORS = "glibc,jemalloc"
# The soak judges jemalloc with its background thread (freed pages purged on
# jemalloc's clock, as stock's many malloc calls get them purged) and
# reports jemalloc as shipped beside it (bench/NOTES.md: why they differ).
SOAK_ALLOCATORS = "glibc,jemalloc_bg,jemalloc"
SOAK_SECONDS, QUICK_SOAK_SECONDS = 600, 20


class UsageError(Exception):
    """Bad input; the message is one line, the exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parser():
    p = _Parser(prog="felt_cost", description=(
        "What users feel (wall, CPU, page faults, RSS, throughput) of stock vs pooled "
        "RocksDB, allocator by allocator, over db_bench. bench/README.md, "
        "\"What users feel (felt_cost.py)\"."))
    p.add_argument("--workloads", help="comma-separated names or groups: "
                   f"{', '.join(dbb.WORKLOAD_NAMES)}; groups {', '.join(dbb.GROUPS)}, all "
                   "(default all; --quick: " + QUICK_WORKLOADS + ")")
    p.add_argument("--allocators", help=f"comma-separated: {', '.join(dbb.ALLOCATORS)} "
                   f"(default {','.join(dbb.DEFAULT_ALLOCATORS)}; soak: {SOAK_ALLOCATORS}; --quick: "
                   + QUICK_ALLOCATORS + ")")
    p.add_argument("--pairs", help="stock/pooled pairs per cell (default 5; --quick: 1)")
    p.add_argument("--scale", help="multiplies every workload's keys and reads "
                   f"(default 1; --quick: {QUICK_SCALE})")
    p.add_argument("--quick", action="store_true", help="smoke run: tiny sizes, 1 pair, "
                   "2 workloads, 2 allocators (each overridable)")
    p.add_argument("--soak", nargs="?", const="default", metavar="SECONDS",
                   help=f"soak mode instead of the matrix (default {SOAK_SECONDS} s, "
                   f"--quick {QUICK_SOAK_SECONDS} s)")
    p.add_argument("--soak_codec", default="zlib", help="the soak DB's codec (default zlib)")
    p.add_argument("--soak_runs", default="1", help="soak runs per allocator, alternating "
                   "allocators (default 1); the verdict reads the median over the runs, and "
                   "one run's RSS swings by a few MiB, so judge on 3 or more")
    p.add_argument("--md", help="write the Markdown tables here")
    p.add_argument("--json", help="write every run's figures, medians, ratios, p-values here")
    p.add_argument("--heatmap", help="PNG: pooled/stock median wall, workload x allocator")
    p.add_argument("--soak_png", help="PNG: RSS over time per side and allocator (soak)")
    p.add_argument("--report", metavar="FILE.json",
                   help="run nothing: render --md/--heatmap/--soak_png from this JSON")
    p.add_argument("--preload", help="the rockpool object pooled preloads (default: bazel "
                   "builds the one --object names)")
    p.add_argument("--upstream", metavar="PREFIX", help="an upstream RocksDB >= 10.4 "
                   "install: PREFIX/bin/db_bench, PREFIX/lib/librocksdb.so")
    p.add_argument("--object", "--upstream_object", dest="object", help="which rockpool "
                   "object pooled loads: preload (LD_PRELOAD librockpool_preload.so, built "
                   "for Debian's RocksDB; the default without --upstream), interpose "
                   "(LD_PRELOAD librockpool_interpose.so, any RocksDB; the default with "
                   "--upstream) or native (compression_manager=rockpool; --upstream only)")
    p.add_argument("--db_bench", default="/usr/bin/db_bench",
                   help="Debian's db_bench (7.8.3 on Debian 12, 9.10 on Debian 13); "
                   "ignored with --upstream")
    p.add_argument("--tmpdir", help="where the temporary DBs go (default: $TMPDIR or /tmp)")
    p.add_argument("--sample_ms", default="50", help="VmRSS sampling period, 50-100 ms "
                   "(soak: every second)")
    _myrocks_flags(p)
    return p


def _myrocks_flags(p):
    g = p.add_argument_group("MyRocks (--myrocks): MariaDB's MyRocks under sysbench")
    g.add_argument("--myrocks", action="store_true", help="stock vs pooled mariadbd served to "
                   f"sysbench {' and '.join(myr.WORKLOADS)} instead of db_bench; --preload "
                   "defaults to librockpool_interpose.so")
    g.add_argument("--codecs", help=f"comma-separated: {', '.join(myr.CODECS)} (default "
                   f"{','.join(myr.DEFAULT_CODECS)}; --quick: {','.join(myr.QUICK_CODECS)})")
    g.add_argument("--myrocks_seconds", help="seconds per measured sysbench workload "
                   f"(default {myr.SECONDS[0]}; --quick: {myr.SECONDS[1]})")
    g.add_argument("--myrocks_tables", help=f"sysbench tables (default {myr.TABLES[0]}; "
                   f"--quick: {myr.TABLES[1]})")
    g.add_argument("--myrocks_rows", help=f"rows per table (default {myr.ROWS[0]}; --quick: "
                   f"{myr.ROWS[1]})")
    g.add_argument("--myrocks_threads", default=str(myr.THREADS), help="sysbench threads "
                   f"(default {myr.THREADS})")
    g.add_argument("--mariadbd", default="/usr/sbin/mariadbd", help="the server")
    g.add_argument("--mariadb_bindir", default="/usr/bin", help="where mariadb, mariadb-admin "
                   "and mariadb-install-db are")
    g.add_argument("--sysbench", default="/usr/bin/sysbench", help="sysbench (1.0)")


def _number(text, name, kind, lo, hi):
    try:
        v = kind(text)
    except (TypeError, ValueError):
        raise UsageError(f"--{name}={text}: not a number") from None
    if not lo <= v <= hi:
        raise UsageError(f"--{name}={text}: expected {lo} to {hi}")
    return v


def _allocators(text):
    names = []
    for n in (s.strip() for s in text.split(",") if s.strip()):
        if "/" in n:  # NAME=PATH or PATH: an allocator built by hand
            name, _, path = n.rpartition("=")
            try:
                n = dbb.add_allocator_from_path(name or path, path)
            except ValueError as e:
                raise UsageError(f"--allocators: {e}") from None
        elif n not in dbb.ALLOCATORS:
            raise UsageError(f"unknown allocator {n!r} (known: {', '.join(dbb.ALLOCATORS)}, "
                             "or NAME=PATH of a malloc library)")
        names.append(n)
    if not names:
        raise UsageError("--allocators: none selected")
    return list(dict.fromkeys(names))


PATH_FLAGS = ("md", "json", "heatmap", "soak_png", "report", "preload", "upstream", "tmpdir",
              "db_bench") + myr.PATH_FLAGS


def _absolute_paths(a, cwd):
    """`bazel run` starts the program in its runfiles: relative paths are
    meant from where the user typed the command (BUILD_WORKING_DIRECTORY)."""
    for flag in PATH_FLAGS:
        path = getattr(a, flag)
        if path and cwd and not os.path.isabs(path):
            setattr(a, flag, os.path.join(cwd, path))


def _check_paths(a):
    for flag in ("md", "json", "heatmap", "soak_png"):
        path = getattr(a, flag)
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise UsageError(f"--{flag}={path}: no such directory")
    if a.tmpdir and not os.path.isdir(a.tmpdir):
        raise UsageError(f"--tmpdir={a.tmpdir}: no such directory")
    a.object = a.object or ("interpose" if a.upstream else "preload")
    allowed = ("interpose", "native") if a.upstream else ("preload", "interpose")
    if a.object not in allowed:
        raise UsageError(f"--object={a.object}: expected {' or '.join(allowed)}"
                         + (" with --upstream" if a.upstream else " without --upstream"))
    if a.soak_codec not in ("none", "zlib", "zstd", "lz4", "lz4hc"):
        raise UsageError(f"--soak_codec={a.soak_codec}: expected zlib, zstd, lz4, lz4hc or none")


def parse(argv, cwd=None):
    """Flags -> a validated namespace (defaults filled in); UsageError otherwise.
    cwd: where relative paths start (default: BUILD_WORKING_DIRECTORY if set)."""
    a = parser().parse_args(argv)
    _absolute_paths(a, cwd or os.environ.get("BUILD_WORKING_DIRECTORY"))
    _check_paths(a)
    if a.report:
        return a
    a.scale = _number(a.scale or (QUICK_SCALE if a.quick else 1), "scale", float, 0.001, 100)
    a.pairs = _number(a.pairs or (1 if a.quick else 5), "pairs", int, 1, 1000)
    a.sample_ms = _number(a.sample_ms, "sample_ms", int, 10, 1000)
    if a.myrocks:
        return _myrocks_args(a)
    if a.soak is not None:
        default = QUICK_SOAK_SECONDS if a.quick else SOAK_SECONDS
        a.soak = default if a.soak == "default" else _number(a.soak, "soak", int, 1, 7 * 86400)
        a.soak_runs = _number(a.soak_runs, "soak_runs", int, 1, 100)
        a.allocators = _allocators(a.allocators or SOAK_ALLOCATORS)
        a.workloads = []
    else:
        a.allocators = _allocators(a.allocators or (
            QUICK_ALLOCATORS if a.quick else ",".join(dbb.DEFAULT_ALLOCATORS)))
        try:
            a.workloads = dbb.parse_workloads(a.workloads or (
                QUICK_WORKLOADS if a.quick else "all"))
        except ValueError as e:
            raise UsageError(str(e)) from None
    return a


# db_bench's flags, meaningless to --myrocks.
_DB_BENCH_ONLY = ("workloads", "soak", "upstream", "heatmap", "soak_png")


def _myrocks_args(a):
    for flag in _DB_BENCH_ONLY:
        if getattr(a, flag) is not None:
            raise UsageError(f"--{flag} is db_bench's; --myrocks runs sysbench")
    q = 1 if a.quick else 0
    a.allocators = _allocators(a.allocators or ",".join(
        myr.QUICK_ALLOCATORS if a.quick else myr.DEFAULT_ALLOCATORS))
    try:
        a.codecs = myr.parse_codecs(a.codecs or ",".join(
            myr.QUICK_CODECS if a.quick else myr.DEFAULT_CODECS))
    except ValueError as e:
        raise UsageError(str(e)) from None
    a.myrocks_seconds = _number(a.myrocks_seconds or myr.SECONDS[q], "myrocks_seconds", int,
                                1, 86400)
    a.myrocks_tables = _number(a.myrocks_tables or myr.TABLES[q], "myrocks_tables", int, 1, 64)
    a.myrocks_rows = _number(a.myrocks_rows or myr.ROWS[q], "myrocks_rows", int, 100, 10**8)
    a.myrocks_threads = _number(a.myrocks_threads, "myrocks_threads", int, 1, 1024)
    a.workloads = []
    return a


def fail(message, status=2):
    """One line on stderr, then exit."""
    print(f"felt_cost: {message}", file=sys.stderr)
    sys.exit(status)
