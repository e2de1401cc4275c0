#!/usr/bin/env python3
"""What users feel: stock vs pooled RocksDB, allocator by allocator.

Runs db_bench (Debian's /usr/bin/db_bench, RocksDB 7.8.3, or an upstream
install's with --upstream) per workload and allocator, stock and pooled in
alternating processes (stock, pooled, then pooled, stock: the starting side
flips every other pair), and measures what a user feels: wall time, user and
sys CPU, minor page faults, peak RSS, RSS at exit, and db_bench's own ops/s
and p99 latency per phase. Medians per side, the pooled/stock ratio and a
two-sided Mann-Whitney U test per figure; a verdict per cell. --soak runs
readwhilewriting for minutes instead and follows RSS over time. --myrocks
measures MariaDB's MyRocks under sysbench instead (bench/felt_myrocks.py).

  bash tools/setup.sh --stage=bench
  bazel run //bench:felt_cost -- --md=/tmp/felt.md --json=/tmp/felt.json --heatmap=/tmp/felt.png
  bazel run //bench:felt_cost -- --soak --json=/tmp/soak.json --soak_png=/tmp/soak.png
  bazel run //bench:felt_cost -- --report=/tmp/felt.json --md=/tmp/felt.md --heatmap=/tmp/felt.png
  bazel run //bench:felt_cost -- --myrocks --md=/tmp/myrocks.md --json=/tmp/myrocks.json

bench/README.md, "What users feel (felt_cost.py)", says what each figure means.
"""

import datetime
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the work tree when run by hand
if __package__ in (None, "") and "bench" not in sys.modules:
    # By hand (python3 bench/felt_cost.py): the repository root holds `bench`.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import felt_cli as cli  # noqa: E402
from bench import felt_dbbench as dbb  # noqa: E402
from bench import felt_myrocks as myr  # noqa: E402
from bench import felt_plot  # noqa: E402
from bench import felt_report as rep  # noqa: E402
from bench import felt_run  # noqa: E402
from bench import felt_soak  # noqa: E402
from bench import felt_stats as st  # noqa: E402
from bench.felt_session import SIDES, RunFailed, Session  # noqa: E402

UPSTREAM_OUTPUT_BASE = os.path.expanduser("~/.cache/bazel_upstream")


def workspace():
    """The repository: `bazel run` says where; by hand, this file's parent."""
    return os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))


def build_object(label, startup=(), flags=()):
    """Builds a rockpool object with Bazel; its path in bazel-bin."""
    bazel = shutil.which("bazel")
    if not bazel:
        raise dbb.SetupError(f"bazel not found to build {label}; pass --preload=PATH")
    print(f"felt_cost: bazel build {label} ...", file=sys.stderr, flush=True)
    base = [bazel, *startup]
    r = subprocess.run(base + ["build", "--symlink_prefix=/", *flags, label], cwd=workspace(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        tail = [s for s in r.stdout.splitlines() if s.strip()][-1:] or [""]
        raise dbb.SetupError(f"bazel build {label} failed: {tail[0]}")
    out = subprocess.run(base + ["info", *flags, "bazel-bin"], cwd=workspace(),
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    package, name = label[2:].split(":")
    return os.path.join(out.stdout.strip(), package, name)


def resolve_face(a):
    """Which db_bench runs, and the rockpool object pooled loads into it."""
    if a.preload and not os.path.isfile(a.preload):
        raise dbb.SetupError(f"--preload={a.preload}: no such file")
    if not a.upstream:
        if not os.access(a.db_bench, os.X_OK):
            raise dbb.SetupError(f"{a.db_bench} is missing; install rocksdb-tools "
                                 "(bash tools/setup.sh)")
        obj = a.preload or build_object(f"//rocksdb_plugin/legacy:librockpool_{a.object}.so")
        return dbb.Face(a.object, a.db_bench, obj)
    prefix = os.path.abspath(a.upstream)
    db_bench = os.path.join(prefix, "bin", "db_bench")
    if not os.access(db_bench, os.X_OK):
        raise dbb.SetupError(f"{db_bench} not found: --upstream wants an upstream RocksDB "
                             ">= 10.4 install (PREFIX/bin/db_bench, PREFIX/lib/librocksdb.so)")
    if a.object == "interpose":
        obj = a.preload or build_object("//rocksdb_plugin/legacy:librockpool_interpose.so")
    else:
        # Built against the install itself, in an output base of its own.
        obj = a.preload or build_object(
            "//rocksdb_plugin/native:librockpool_native.so",
            startup=[f"--output_base={UPSTREAM_OUTPUT_BASE}"],
            flags=[f"--repo_env=ROCKPOOL_ROCKSDB_PREFIX={prefix}"])
    return dbb.Face(a.object, db_bench, obj, os.path.join(prefix, "lib"))


def loadavg():
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return None


def new_doc(a, face, mode):
    doc = {"tool": "felt_cost", "format": rep.FORMAT, "context": {
        "mode": mode,
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": os.uname().nodename, "cpus": os.cpu_count(), "loadavg_start": loadavg(),
        "db_bench": face.db_bench, "face": face.name, "object": face.obj,
        "upstream": bool(face.lib_dir),
        "pool_options": ("compression_manager={id=rockpool;max_idle_per_key=8} in the "
                         "OPTIONS file" if face.name == "native"
                         else f"ROCKPOOL_OPTIONS={dbb.POOL_OPTIONS}"),
        "scale": a.scale,
        "allocators": {n: dbb.ALLOCATORS[n].about for n in a.allocators},
        "workloads": [w.name for w in a.workloads]}, "cells": []}
    if mode == "matrix":
        doc["context"].update(pairs=a.pairs, order="stock, pooled; the starting side flips "
                              "every other pair")
    return doc


def run_cell(s, a, wl, alloc, prep):
    runs, seq = [], 0
    for pair in range(a.pairs):
        for side in (SIDES if pair % 2 == 0 else SIDES[::-1]):
            db = prep["db"] or s.path("db")
            if wl.fresh_db:
                shutil.rmtree(db, ignore_errors=True)
            opts = prep["options"][side] if prep["options"] else None
            out, err = s.path("run.out"), s.path("run.err")
            res = felt_run.run(s.argv(prep["args"], db, opts), s.env(alloc, side), out, err,
                               a.sample_ms / 1000)
            what = f"{wl.name} {alloc} {side} pair {pair + 1}"
            res = s.finish(res, out, err, what, wl.main_phase)
            if wl.fresh_db:
                shutil.rmtree(db, ignore_errors=True)
            res.update(side=side, pair=pair, seq=seq)
            seq += 1
            runs.append(res)
            s.say(f"   {what}: wall {rep.fmt(res['wall_s'], 's')}, CPU "
                  f"{rep.fmt(res['cpu_s'], 's')}, faults {rep.fmt(res['minflt'], 'count')}, "
                  f"peak RSS {rep.fmt(res['maxrss_kb'], 'KiB')}")
    pool = pool_figures(s, a, wl, alloc, prep)
    return {"workload": wl.name, "allocator": alloc, "main_phase": wl.main_phase, "runs": runs,
            "pool": pool, "summary": st.summarize_cell(runs, wl.main_phase, pool)}


def pool_figures(s, a, wl, alloc, prep):
    """What pooled holds on purpose, from one more pooled run after the
    pairs, not measured (its statistics file is written at exit, and the
    sampler reads /proc/PID/smaps): the pool's peak retained bytes and idle
    bytes at exit, and the object's most resident pages. Measured runs carry
    no statistics variable, so writing the file costs them nothing."""
    db = prep["db"] or s.path("db")
    if wl.fresh_db:
        shutil.rmtree(db, ignore_errors=True)
    opts = prep["options"]["pooled"] if prep["options"] else None
    out, err = s.path("stats_run.out"), s.path("stats_run.err")
    env, stats = s.statistics_env(alloc, "pooled")
    res = felt_run.run(s.argv(prep["args"], db, opts), env, out, err, a.sample_ms / 1000,
                       watch_object=s.face.obj)
    s.finish(res, out, err, f"{wl.name} {alloc} statistics run", wl.main_phase)
    if wl.fresh_db:
        shutil.rmtree(db, ignore_errors=True)
    report = dbb.pool_report_kb(stats) or {}
    return {"peak_retained_kb": report.get("peak_retained_kb"),
            "idle_exit_kb": report.get("idle_kb"), "object_rss_kb": res.get("object_rss_kb")}


def prepare(s, wl):
    """A read workload's DB (filled once, stock) and the native face's OPTIONS files."""
    args = wl.run_args(s.scale)
    db = None
    if not wl.fresh_db:
        db = s.path(f"db_{wl.name}")
        s.fill(wl.fill_args(s.scale), db)
    return {"args": args, "db": db, "options": s.options_files(wl.name, args)}


def run_matrix(s, a, doc):
    total = len(a.workloads) * len(a.allocators)
    s.say(f"felt_cost: {len(a.workloads)} workload(s) x {len(a.allocators)} allocator(s) x "
          f"{a.pairs} pair(s) = {2 * total * a.pairs} db_bench runs (scale {a.scale})")
    n = 0
    for wl in a.workloads:
        prep = prepare(s, wl)
        for alloc in a.allocators:
            n += 1
            s.say(f"[{n}/{total}] {wl.name} under {alloc}: {a.pairs} pair(s)")
            cell = run_cell(s, a, wl, alloc, prep)
            doc["cells"].append(cell)
            wall = cell["summary"]["metrics"]["wall_s"]
            s.say(f"   wall {rep.fmt(wall['stock_median'], 's')} -> "
                  f"{rep.fmt(wall['pooled_median'], 's')} ({rep.fmt_ratio(wall)}, p "
                  f"{rep.fmt_p(wall)}): {cell['summary']['verdict']}")
            if a.json:  # an interrupted run keeps the cells it finished
                rep.save_json(doc, a.json)
        if prep["db"]:
            shutil.rmtree(prep["db"], ignore_errors=True)


def write_outputs(a, doc):
    text = myr.render_markdown(doc) if "myrocks" in doc else rep.render_markdown(doc)
    print(text)
    if a.md:
        with open(a.md, "w", encoding="utf-8") as f:
            f.write(text)
    if a.json and not a.report:
        rep.save_json(doc, a.json)
    ctx = doc["context"]
    what = (f"db_bench {ctx.get('rocksdb') or '?'}"
            + (" (upstream)" if ctx.get("upstream") else "") + f", {ctx.get('face')} object")
    if a.heatmap:
        if doc.get("cells"):
            felt_plot.write_heatmap(doc["cells"], a.heatmap,
                                    f"pooled / stock median wall time ({what})")
        else:
            print("felt_cost: no cells to draw in --heatmap (a soak document)", file=sys.stderr)
    if a.soak_png:
        if doc.get("soak"):
            felt_plot.write_soak_png(doc["soak"], a.soak_png, f"RSS over time, readwhilewriting "
                                     f"({what}, stock and pooled concurrently)")
        else:
            print("felt_cost: no soak to draw in --soak_png", file=sys.stderr)


def measure(a):
    dbb.check_allocators(a.allocators)
    face = resolve_face(a)
    tmp = tempfile.mkdtemp(prefix="felt_cost_", dir=a.tmpdir)
    s = Session(face, tmp, a.scale, a.sample_ms / 1000)
    try:
        doc = new_doc(a, face, "soak" if a.soak is not None else "matrix")
        if a.soak is not None:
            doc["soak"] = felt_soak.run_soak(s, a)
        else:
            run_matrix(s, a, doc)
        doc["context"]["rocksdb"] = s.version
        doc["context"]["loadavg_end"] = loadavg()
        return doc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _terminate(signum, frame):
    raise KeyboardInterrupt  # the same cleanup as Ctrl-C: children killed, temp dir removed


def main(argv):
    try:
        a = cli.parse(argv)
    except cli.UsageError as e:
        cli.fail(str(e))
    if a.report:
        try:
            doc = myr.summarize(rep.load_json(a.report))
        except ValueError as e:
            cli.fail(str(e))
    if a.heatmap or a.soak_png:
        try:
            felt_plot.pyplot()  # before measuring for half an hour, not after
        except ImportError as e:
            cli.fail(str(e))
    if not a.report:
        signal.signal(signal.SIGTERM, _terminate)
        try:
            doc = myr.measure(a, build_object, loadavg) if a.myrocks else measure(a)
        except dbb.SetupError as e:
            cli.fail(str(e))
        except RunFailed as e:
            cli.fail(str(e), 1)
        except KeyboardInterrupt:
            cli.fail("interrupted; temporary DBs removed", 130)
    write_outputs(a, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
