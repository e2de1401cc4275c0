#!/usr/bin/env python3
"""What loading rockpool costs a process it never serves.

A preloaded object is a guest: in a process that never calls a codec it
pools it should cost (almost) nothing. This runs Debian's RocksDB 7.8.3 tools
on an uncompressed DB, each side by side with and without
librockpool_preload.so (loaded as `rockpool run` loads it: LD_PRELOAD and
ROCKPOOL_OPTIONS=max_idle_per_key=8), alternating, and prints the medians of
peak RSS and minor page faults and what the object adds. A third side
preloads an empty shared object (bench/empty_preload.c) as a control: what
any preloaded object adds to the same process (the loader's work, a heap
and stack laid out a little differently), so that a table can tell that
from what rockpool's own pages add:

  db_bench   fillrandom,compact, 50k x 200 B, --compression_type=none
  ldb        scan of that DB (made once, unmeasured)
  sst_dump   --command=check of that DB's SST files

  bazel run //bench:fixed_cost -- [--pairs=25] [--allocators=glibc,jemalloc]
      [--preload=PATH] [--md=FILE]

The figures are the kernel's own (os.wait4's rusage), the child started as
felt_cost.py starts it (bench/felt_run.py: ru_maxrss is the child's alone).
The target the project holds itself to: at most +256 KiB and +64 faults.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the work tree when run by hand
if __package__ in (None, "") and "bench" not in sys.modules:
    # By hand (python3 bench/fixed_cost.py): the repository root holds `bench`.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import felt_cost  # noqa: E402
from bench import felt_dbbench as dbb  # noqa: E402
from bench import felt_run  # noqa: E402
from bench import felt_stats as st  # noqa: E402

TOOLS = ("db_bench", "ldb", "sst_dump")
RSS_TARGET_KB, FAULT_TARGET = 256, 64
# The sides of a cell, alternated: stock, the empty control object, rockpool.
SIDES = ("stock", "empty", "pooled")


def tool_argv(tool, db):
    if tool == "db_bench":
        return ["/usr/bin/db_bench", "--benchmarks=fillrandom,compact", "--num=50000",
                "--value_size=200", "--compression_type=none", "--seed=1", f"--db={db}"]
    if tool == "ldb":
        return ["/usr/bin/ldb", f"--db={db}", "scan"]
    return ["/usr/bin/sst_dump", f"--file={db}", "--command=check"]


def side_env(allocator, side, face, empty_obj):
    """The environment of one side; the control preloads `empty_obj` where
    pooled preloads rockpool, with no ROCKPOOL_OPTIONS."""
    if side != "empty":
        return dbb.side_env(os.environ, allocator, side, face)
    env = dbb.side_env(os.environ, allocator, "stock", face)
    env["LD_PRELOAD"] = " ".join(filter(None, [env.get("LD_PRELOAD", ""), empty_obj]))
    return env


def measure(tool, allocator, side, face, empty_obj, work, shared_db):
    """One run; db_bench writes a DB of its own each time."""
    db = os.path.join(work, "bench_db") if tool == "db_bench" else shared_db
    shutil.rmtree(os.path.join(work, "bench_db"), ignore_errors=True)
    env = side_env(allocator, side, face, empty_obj)
    r = felt_run.run(tool_argv(tool, db), env, os.path.join(work, "out"),
                     os.path.join(work, "err"))
    if r["exit_code"] != 0:
        with open(os.path.join(work, "err"), encoding="utf-8", errors="replace") as f:
            tail = (f.read().strip().splitlines() or [""])[-1]
        raise dbb.SetupError(f"{tool} ({allocator}, {side}) exited {r['exit_code']}: {tail}")
    return r


HEADER = ("| process | allocator | peak RSS KiB stock | empty object | with rockpool | added "
          "| p | rockpool - empty | minor faults stock | empty object | with rockpool | added "
          "| p | rockpool - empty | verdict |")


def row(tool, allocator, runs):
    """A table row: per figure, the sides' medians, what rockpool adds over
    stock (the verdict's figure) and its p, and what it adds over the empty
    control object."""
    cells = [tool, allocator]
    verdicts = []
    for key, target in (("maxrss_kb", RSS_TARGET_KB), ("minflt", FAULT_TARGET)):
        stock, empty, pooled = ([r[key] for r in runs[side]] for side in SIDES)
        m_stock, m_empty, m_pooled = st.median(stock), st.median(empty), st.median(pooled)
        added = m_pooled - m_stock
        p = st.mann_whitney_p(stock, pooled)
        cells += [f"{m_stock:,.0f}", f"{m_empty:,.0f}", f"{m_pooled:,.0f}", f"{added:+,.0f}",
                  f"{p:.3f}", f"{m_pooled - m_empty:+,.0f}"]
        verdicts.append(added <= target)
    cells.append("within target" if all(verdicts) else "OVER target")
    return "| " + " | ".join(cells) + " |"


def alternating(i):
    """The order of the sides in round `i`: rotated, so that no side always
    runs first or right after another."""
    k = i % len(SIDES)
    return SIDES[k:] + SIDES[:k]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=25)
    ap.add_argument("--allocators", default="glibc")
    ap.add_argument("--preload", default="")
    ap.add_argument("--md", default="")
    a = ap.parse_args(argv)
    try:
        if a.pairs < 1:
            raise dbb.SetupError("--pairs must be at least 1")
        allocators = [s for s in a.allocators.split(",") if s]
        dbb.check_allocators(allocators)
        obj = a.preload or felt_cost.build_object("//rocksdb_plugin/legacy:librockpool_preload.so")
        empty_obj = felt_cost.build_object("//bench:empty_preload.so")
        face = dbb.Face("preload", "/usr/bin/db_bench", obj)
        felt_run.become_subreaper()
        work = tempfile.mkdtemp(prefix="fixed_cost.")
        try:
            shared_db = os.path.join(work, "db")
            subprocess.run(tool_argv("db_bench", shared_db), check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            lines = [HEADER, "| --- " * HEADER.count("|", 1) + "|"]
            for allocator in allocators:
                for tool in TOOLS:
                    runs = {side: [] for side in SIDES}
                    for i in range(a.pairs):
                        for side in alternating(i):
                            runs[side].append(measure(tool, allocator, side, face, empty_obj,
                                                      work, shared_db))
                    lines.append(row(tool, allocator, runs))
                    print(lines[-1], flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    except (dbb.SetupError, subprocess.CalledProcessError) as e:
        print(f"fixed_cost: {e}", file=sys.stderr)
        return 2
    text = "\n".join([f"Object: {obj}; control: {empty_obj}; {a.pairs} alternating rounds "
                      f"(stock, empty, rockpool), medians; target (rockpool over stock) "
                      f"+{RSS_TARGET_KB} KiB, +{FAULT_TARGET} faults.", ""] + lines) + "\n"
    print("\n" + text)
    if a.md:
        # Relative to where `bazel run` was typed.
        md = os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", ""), a.md)
        with open(md, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
