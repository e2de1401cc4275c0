#!/usr/bin/env python3
"""Old / new / delta per metric for benchmark JSON files, benchstat-style.

  compare.py OLD.json NEW.json              same benchmark names in two runs
  compare.py RUN.json --within Fresh Pooled  two variants inside one run
                                             (names differing by that token)

Reads Google Benchmark JSON (--benchmark_out=FILE --benchmark_format=json,
with or without --benchmark_repetitions) and the compaction benchmark's JSON
(same layout). For each benchmark and metric it prints the median of the
repeats with its spread (max deviation from the median, in %) and the delta
of the medians. Google Benchmark's own tools/compare.py (Debian package
libbenchmark-tools) compares only times and needs scipy; this one also
compares the counters (alloc_B/op, allocs/op, ratio, peak RSS, ...).
"""
import argparse
import json
import statistics
import sys
from collections import OrderedDict

SKIP = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads",
        "iterations", "time_unit", "family_index", "per_family_instance_index",
        "aggregate_name", "aggregate_unit", "label", "error_occurred", "error_message"}


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"compare: cannot read {path}: {e}")
    runs = OrderedDict()
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" or b.get("error_occurred"):
            continue
        name = b.get("run_name", b["name"])
        metrics = runs.setdefault(name, OrderedDict())
        for k, v in b.items():
            if k in SKIP or not isinstance(v, (int, float)):
                continue
            metrics.setdefault(k, []).append(float(v))
    return runs


def summary(values):
    med = statistics.median(values)
    spread = max(abs(v - med) for v in values) / abs(med) * 100 if med else 0.0
    return med, spread


def fmt(v):
    a = abs(v)
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if a >= scale:
            return f"{v / scale:.3g}{unit}"
    return f"{v:.3g}"


def compare(pairs):
    width = max([len(n) for n, _, _ in pairs] + [20])
    print(f"{'name':<{width}} {'metric':<18} {'old':>14} {'new':>14} {'delta':>9}")
    for name, old, new in pairs:
        for metric in old:
            if metric not in new:
                continue
            (mo, so), (mn, sn) = summary(old[metric]), summary(new[metric])
            if mo == 0 and mn == 0:
                delta = "~"
            elif mo == 0:
                delta = "+inf%"
            else:
                delta = f"{(mn - mo) / abs(mo) * 100:+.1f}%"
            print(f"{name:<{width}} {metric:<18} {fmt(mo):>8} ±{so:>3.0f}% {fmt(mn):>8} ±{sn:>3.0f}% {delta:>9}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old")
    p.add_argument("new", nargs="?")
    p.add_argument("--within", nargs=2, metavar=("OLD_TOKEN", "NEW_TOKEN"))
    p.add_argument("--filter", default="", help="only names containing this")
    args = p.parse_args()
    pairs = []
    if args.within:
        runs = load(args.old)
        a, b = args.within
        for name, metrics in runs.items():
            if f"/{a}/" in f"/{name}/" and args.filter in name:
                other = ("/" + name + "/").replace(f"/{a}/", f"/{b}/", 1).strip("/")
                if other in runs:
                    label = ("/" + name + "/").replace(f"/{a}/", "/", 1).strip("/")
                    pairs.append((label, metrics, runs[other]))
    elif args.new:
        old, new = load(args.old), load(args.new)
        pairs = [(n, old[n], new[n]) for n in old if n in new and args.filter in n]
    else:
        p.error("give NEW.json or --within OLD_TOKEN NEW_TOKEN")
    if not pairs:
        sys.exit("compare: no benchmarks in common")
    compare(pairs)


if __name__ == "__main__":
    main()
