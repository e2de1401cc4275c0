"""Statistics of the felt-cost benchmark (bench/felt_cost.py): medians, the
two-sided Mann-Whitney U test, per-cell summaries and the verdict.

The U test is SciPy's (`scipy.stats.mannwhitneyu`, Debian's python3-scipy),
chosen to agree with sst_replay's `MannWhitneyP` (tools/process/mann_whitney.cc)
where both are right: the exact distribution of U for up to 40 values
without ties (the same p), the normal approximation with a continuity
correction beyond. With ties SciPy's exact distribution does not hold, so
tied samples get its normal approximation, whose variance is corrected for
the ties (sst_replay keeps the exact distribution with ties counted half:
the two p can differ there). A difference is treated as benchstat treats
it: "~" (no difference shown) unless p <= 0.05.
"""

from bench import debian_python

ALPHA = 0.05

# The figures of one run that the tables compare, in table order:
# (key, label, unit, lower is better, felt fraction of stock, felt absolute
# floor, part of the verdict). A significant difference counts as felt only
# when it is at least that fraction of stock and at least the floor: a
# 0.3 MiB RSS change is significant over 5 quiet pairs but nobody feels it.
# Minor faults are the mechanism behind sys time, not something a user
# feels by itself: shown, but left to CPU and wall in the verdict. RSS at
# exit is shown, not judged: it is the last 50 ms sample, and db_bench frees
# its memtables (tens of MiB) in its last milliseconds, so whether a sample
# lands before or after that decides the figure (measured: a cell's runs
# split between ~20 and ~70 MiB on either side); the soak's one-second
# samples of a long-running process judge retained memory instead. Peak
# RSS is judged against an allowance (rss_allowance_kb): what pooled holds
# on purpose, the pool's peak retained bytes plus the object's resident
# pages, read from a statistics run outside the measured ones.
#
# Peak RSS is the kernel's high-water mark (ru_maxrss), and on a machine
# with more than one CPU that mark is not exact (consistent with Linux
# keeping a process's RSS in per-CPU counters; bench/NOTES.md). Measured here
# (Linux 6.18, 2 CPUs, db_bench 9.10 with a secondary cache): pooled marks
# ended up to 0.9 MiB above every VmRSS sample of their run, stock marks up
# to 0.2 MiB below one (a mark below a sample cannot be exact), and pinning
# the process to one CPU moved the marks by up to 0.9 MiB while the samples
# stayed. So the largest VmRSS sample (every 50 ms; exact, but it can miss a
# peak shorter than the interval) is kept beside the mark, and the allowance
# counts as met when either figure keeps within it (rss_target).
METRICS = (
    ("wall_s", "wall", "s", True, 0.03, 0.01, True),
    ("cpu_s", "CPU user+sys", "s", True, 0.03, 0.01, True),
    ("minflt", "minor faults", "count", True, 0.10, 100, False),
    ("maxrss_kb", "peak RSS", "KiB", True, 0.05, 1024, True),
    ("rss_max_sampled_kb", "peak RSS sampled", "KiB", True, 0.05, 1024, False),
    ("rss_exit_kb", "RSS at exit", "KiB", True, 0.05, 1024, False),
    ("ops", "ops/s", "ops/s", False, 0.03, 1, True),
)
METRIC_KEYS = tuple(m[0] for m in METRICS)
PHASE_FIGURES = ("ops", "p99_us")


def median(values):
    """The median; the mean of the two middle values for an even count."""
    s = sorted(values)
    n = len(s)
    if n == 0:
        return None
    return s[n // 2] if n % 2 == 1 else (s[n // 2 - 1] + s[n // 2]) / 2


# Up to this many values in all, without ties, p comes from U's exact
# distribution (sst_replay's MannWhitneyP uses the same bound).
EXACT_MAX_VALUES = 40


def _mannwhitneyu():
    return debian_python.import_module("scipy.stats", "python3-scipy").mannwhitneyu


def mann_whitney_p(a, b):
    """Two-sided p-value of the Mann-Whitney U test (as benchstat uses):
    exact for up to 40 values without ties, SciPy's tie-corrected normal
    approximation otherwise; 1.0 when a side is empty."""
    if not a or not b:
        return 1.0
    values = list(a) + list(b)
    exact = len(values) <= EXACT_MAX_VALUES and len(set(values)) == len(values)
    result = _mannwhitneyu()(list(a), list(b), alternative="two-sided",
                             method="exact" if exact else "asymptotic")
    return float(result.pvalue)


def compare(stock, pooled):
    """Medians, pooled/stock ratio and p of two samples (None where empty)."""
    sm, pm = median(stock), median(pooled)
    ratio = pm / sm if sm not in (None, 0) and pm is not None else None
    p = mann_whitney_p(stock, pooled) if stock and pooled else None
    return {"stock": list(stock), "pooled": list(pooled), "stock_median": sm,
            "pooled_median": pm, "ratio": ratio, "p": p}


def significant(c):
    return c.get("p") is not None and c["p"] <= ALPHA


def _values(runs, side, get):
    out = []
    for r in runs:
        if r["side"] == side:
            v = get(r)
            if v is not None:
                out.append(v)
    return out


def main_phase_ops(run, phase):
    ph = run.get("phases", {}).get(phase)
    return ph.get("ops") if ph else None


def rss_allowance_kb(pool):
    """What pooled may add to stock's peak RSS by design (KiB): the pool's
    peak retained bytes (at least its peak idle bytes: contexts stock would
    have freed) plus the object's resident pages; None when either is
    unknown (a stock-only cell, an object older than the figure)."""
    if not pool or pool.get("peak_retained_kb") is None or pool.get("object_rss_kb") is None:
        return None
    return pool["peak_retained_kb"] + pool["object_rss_kb"]


def summarize_cell(runs, main_phase, pool=None):
    """Every metric and every phase figure of one cell, stock vs pooled;
    `pool` (pool_figures of felt_cost) gives peak RSS its allowance."""
    metrics = {}
    for key in METRIC_KEYS:
        if key == "ops":
            get = lambda r: main_phase_ops(r, main_phase)  # noqa: E731
        else:
            get = lambda r, key=key: r.get(key)  # noqa: E731
        metrics[key] = compare(_values(runs, "stock", get), _values(runs, "pooled", get))
    phases = {}
    names = []
    for r in runs:
        for name in r.get("phases", {}):
            if name not in names:
                names.append(name)
    for name in names:
        phases[name] = {}
        for fig in PHASE_FIGURES:
            get = lambda r, name=name, fig=fig: r.get("phases", {}).get(name, {}).get(fig)  # noqa: E731
            phases[name][fig] = compare(_values(runs, "stock", get), _values(runs, "pooled", get))
    allowance = rss_allowance_kb(pool)
    return {"metrics": metrics, "phases": phases, "rss_allowance_kb": allowance,
            "rss_target": rss_target(metrics, allowance),
            "verdict": verdict(metrics, rss_allowance_kb=allowance)}


def _within(c, allowance_kb):
    """pooled median <= stock median + allowance; None when unknown."""
    if not c or c.get("stock_median") is None or c.get("pooled_median") is None:
        return None
    return c["pooled_median"] - c["stock_median"] <= allowance_kb


def rss_target(metrics, allowance_kb):
    """The peak RSS target, pooled median <= stock median + the allowance,
    by the kernel's mark ("met"), or failing that by the largest VmRSS
    sample ("met (sampled)": the mark is approximate, see METRICS); "not
    met", or None when it cannot be judged."""
    if allowance_kb is None:
        return None
    by_mark = _within(metrics.get("maxrss_kb"), allowance_kb)
    if by_mark is None:
        return None
    if by_mark:
        return "met"
    return "met (sampled)" if _within(metrics.get("rss_max_sampled_kb"), allowance_kb) \
        else "not met"


def felt_change(key, c, specs=METRICS):
    """+1 pooled felt worse, -1 felt better, 0 no felt difference."""
    spec = next(m for m in specs if m[0] == key)
    _, _, _, lower_better, frac, floor, _ = spec
    if not significant(c) or c["stock_median"] in (None, 0):
        return 0
    diff = c["pooled_median"] - c["stock_median"]
    if abs(diff) < floor or abs(diff) < frac * abs(c["stock_median"]):
        return 0
    worse = diff > 0 if lower_better else diff < 0
    return 1 if worse else -1


def _pct(c):
    return f"{(c['ratio'] - 1) * 100:+.0f}%"


def verdict(metrics, specs=METRICS, rss_allowance_kb=None):
    """"worse (...)" when any felt figure is significantly worse pooled, even
    if others improved (a regression is never shown as a saving); "better
    (...)" when some are better and none worse; else "no felt difference".
    specs: the figures' table, METRICS's shape (felt_myrocks has its own). A
    higher peak RSS within the allowance (rss_allowance_kb) is what pooling
    holds by design: not counted as worse."""
    worse, better = [], []
    for key, label, _, _, _, _, in_verdict in specs:
        c = metrics.get(key)
        if not in_verdict or not c:
            continue
        change = felt_change(key, c, specs)
        if change > 0 and key == "maxrss_kb" and \
                (rss_target(metrics, rss_allowance_kb) or "").startswith("met"):
            change = 0
        if change > 0:
            worse.append(f"{label} {_pct(c)}")
        elif change < 0:
            better.append(f"{label} {_pct(c)}")
    if worse:
        tail = f"; better: {', '.join(better)}" if better else ""
        return f"worse ({', '.join(worse)}{tail})"
    if better:
        return f"better ({', '.join(better)})"
    return "no felt difference"


def summarize_figures(runs, specs):
    """The figures `specs` names (METRICS's shape), stock vs pooled, and the
    verdict on them: a cell whose runs carry their figures at the top level
    (felt_myrocks: one sysbench workload per run, no db_bench phases)."""
    metrics = {}
    for key, *_ in specs:
        get = lambda r, key=key: r.get(key)  # noqa: E731
        metrics[key] = compare(_values(runs, "stock", get), _values(runs, "pooled", get))
    return {"metrics": metrics, "verdict": verdict(metrics, specs)}


def value_at(samples, t):
    """The first RSS sample at or after t seconds, None if the run was shorter."""
    for st, kb in samples:
        if st >= t:
            return kb
    return None


def soak_runs(soak):
    """Every run of a soak document, first to last, each {allocator: {side:
    result}}: the first under "allocators", the rest under "more_runs"."""
    return [soak.get("allocators", {})] + soak.get("more_runs", [])


def soak_figures(samples, window_s=300):
    """RSS at 1 min, 5 min, the end, its sampled peak, and its mean over the
    last `window_s` seconds (KiB). One sample at the end swings by a
    memtable's worth; the mean over the last minutes is what the soak's
    comparison reads."""
    kbs = [kb for _, kb in samples]
    last = samples[-1][0] if samples else 0
    tail = [kb for t, kb in samples if t >= last - window_s]
    return {"rss_1min_kb": value_at(samples, 60), "rss_5min_kb": value_at(samples, 300),
            "rss_end_kb": kbs[-1] if kbs else None, "rss_peak_kb": max(kbs) if kbs else None,
            "rss_tail_mean_kb": sum(tail) / len(tail) if tail else None}
