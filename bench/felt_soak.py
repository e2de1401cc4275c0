"""Soak mode of the felt-cost benchmark (felt_cost --soak[=SECONDS]): what a
long-running process feels, RSS over time.

One DB is filled once (stock, glibc, not measured). Then, allocator after
allocator, a stock and a pooled db_bench run readwhilewriting (8 readers,
db_bench's one writer) on two copies of it for SECONDS, with VmRSS sampled
every second. The stock and pooled processes of one allocator run at the
same time: on a 2-core machine that is the only way to give both the same
load for ten minutes (one after the other, the second would meet another
machine). Both say so in the output.
"""

import os
import shutil

from bench import felt_dbbench as dbb
from bench import felt_run
from bench.felt_session import SIDES

NOTE = ("The stock and pooled processes of one allocator ran concurrently, on two copies "
        "of the same DB, so both met the same machine load (2 cores shared by the two); "
        "allocators ran one after the other.")


def _start_pair(s, alloc, args, options, stats):
    """Starts both sides; `stats` receives each side's ROCKPOOL_STATS path."""
    children = {}
    for side in SIDES:
        db = s.path(f"soak_{side}")
        shutil.rmtree(db, ignore_errors=True)
        shutil.copytree(s.path("soak_fill"), db)
        opts = options[side] if options else None
        env, stats[side] = s.statistics_env(alloc, side)
        children[side] = felt_run.Child(
            s.argv(args, db, opts), env, s.path(f"soak_{side}.out"),
            s.path(f"soak_{side}.err"), interval_s=1.0, keep_samples=True)
    try:
        for side in SIDES:
            children[side].start()
    except BaseException:
        for c in children.values():
            c.kill()
        raise
    return children


def _run_allocator(s, a, alloc, args, options):
    s.say(f"== soak under {alloc}: stock and pooled concurrently for {a.soak} s")
    stats = {}
    children = _start_pair(s, alloc, args, options, stats)
    results = {}
    try:
        for side in SIDES:
            res = children[side].wait()
            results[side] = s.finish(res, s.path(f"soak_{side}.out"), s.path(f"soak_{side}.err"),
                                     f"soak {alloc} {side}", "readwhilewriting")
            report = dbb.pool_report_kb(stats[side]) if stats[side] else None
            results[side]["pool_idle_kb"] = report["idle_kb"] if report else None
    finally:
        for c in children.values():
            c.kill()
    for side in SIDES:
        shutil.rmtree(s.path(f"soak_{side}"), ignore_errors=True)
        r = results[side]
        s.say(f"   {side}: peak RSS {r['maxrss_kb'] / 1024:.1f} MiB, last sample "
              f"{(r['rss_exit_kb'] or 0) / 1024:.1f} MiB, CPU {r['cpu_s']:.1f} s")
    return results


def run_soak(s, a):
    """The soak section of the JSON document: the first run under
    "allocators", any further runs (--soak_runs) under "more_runs", each of
    the same shape. Every run takes the allocators in turn, so a slow drift
    of the machine falls on all of them alike."""
    args = dbb.soak_args(a.soak_codec, a.soak, s.scale)
    s.fill(dbb.soak_fill_args(a.soak_codec, s.scale), s.path("soak_fill"))
    options = s.options_files("soak", args)
    soak = {"seconds": a.soak, "codec": a.soak_codec, "concurrent": True, "note": NOTE,
            "command": " ".join(os.path.basename(x) if i == 0 else x
                                for i, x in enumerate(s.argv(args, "DB"))),
            "allocators": {}, "more_runs": []}
    for run in range(a.soak_runs):
        if a.soak_runs > 1:
            s.say(f"== soak run {run + 1} of {a.soak_runs}")
        allocators = {alloc: _run_allocator(s, a, alloc, args, options)
                      for alloc in a.allocators}
        if run == 0:
            soak["allocators"] = allocators
        else:
            soak["more_runs"].append(allocators)
    shutil.rmtree(s.path("soak_fill"), ignore_errors=True)
    return soak
