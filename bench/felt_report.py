"""Output of the felt-cost benchmark (bench/felt_cost.py): the JSON document
(every run's raw figures plus medians, ratios and p-values) and the
Markdown tables rendered from it. Rendering recomputes the summaries from
the raw runs, so `felt_cost --report=FILE.json` redraws exactly what the
measuring run printed.

The document:
  {"tool": "felt_cost", "format": 1, "context": {...},
   "cells": [{"workload", "allocator", "main_phase", "runs": [run, ...],
              "summary": {"metrics", "phases", "verdict"}}],
   "soak": {...}}                      (soak mode only)
A run: {"side": "stock"|"pooled", "pair", "seq", "wall_s", "user_s", "sys_s",
"cpu_s", "minflt", "majflt", "maxrss_kb", "rss_exit_kb", "phases": {...}}.
"""

import json

from bench import felt_stats as st

FORMAT = 1


def fmt(v, unit):
    """A figure in the tables' units ("-" when missing)."""
    if v is None:
        return "-"
    if unit == "s":
        return f"{v:.2f} s" if v < 100 else f"{v:.0f} s"
    if unit == "KiB":
        return f"{v / 1024:.1f} MiB"
    if unit == "us":
        return f"{v:.1f} us" if v < 1000 else f"{v / 1000:.2f} ms"
    if unit in ("count", "ops/s"):
        for div, suffix in ((1e6, "M"), (1e3, "k")):
            if abs(v) >= div:
                return f"{v / div:.2f}{suffix}" if abs(v) < 10 * div else f"{v / div:.1f}{suffix}"
        return f"{v:.0f}"
    return f"{v:.3g}"


def fmt_ratio(c):
    """pooled/stock, with benchstat's "~" when the difference is not significant."""
    if c.get("ratio") is None:
        return "-"
    return f"{c['ratio']:.2f}" + ("" if st.significant(c) else " ~")


def fmt_p(c):
    return "-" if c.get("p") is None else f"{c['p']:.3f}"


def _row(cells):
    return "| " + " | ".join(cells) + " |"


def _table(header, rows):
    return [_row(header), _row(["---"] * len(header))] + [_row(r) for r in rows]


def markdown_table(header, rows):
    """The Markdown lines of a table: header, rule, rows (felt_myrocks' too)."""
    return _table(header, rows)


def figure_header(specs=st.METRICS):
    """The columns of figure_columns: stock, pooled, ratio, p per figure."""
    header = []
    for _, label, *_ in specs:
        header += [f"{label} stock", f"{label} pooled", "ratio", "p"]
    return header


def figure_columns(metrics, specs=st.METRICS):
    """Each figure of `specs` (METRICS's shape) of one cell's summary:
    stock median, pooled median, ratio, p."""
    row = []
    for key, _, unit, *_ in specs:
        c = metrics[key]
        row += [fmt(c["stock_median"], unit), fmt(c["pooled_median"], unit), fmt_ratio(c),
                fmt_p(c)]
    return row


def cell_rows(doc):
    rows = []
    for cell in doc.get("cells", []):
        s = cell["summary"]
        pool = cell.get("pool") or {}
        rows.append([cell["workload"], cell["allocator"]] + figure_columns(s["metrics"])
                    + [fmt(pool.get("peak_retained_kb"), "KiB"),
                       fmt(pool.get("object_rss_kb"), "KiB"),
                       fmt(s.get("rss_allowance_kb"), "KiB"), s.get("rss_target") or "-",
                       s["verdict"]])
    return rows


def phase_rows(doc):
    rows = []
    for cell in doc.get("cells", []):
        for name, figs in cell["summary"]["phases"].items():
            ops, p99 = figs["ops"], figs["p99_us"]
            rows.append([cell["workload"], cell["allocator"], name,
                         fmt(ops["stock_median"], "ops/s"), fmt(ops["pooled_median"], "ops/s"),
                         fmt_ratio(ops), fmt_p(ops),
                         fmt(p99["stock_median"], "us"), fmt(p99["pooled_median"], "us"),
                         fmt_ratio(p99), fmt_p(p99)])
    return rows


def context_lines(ctx):
    out = []
    for key, label in (("date", "date"), ("host", "host"), ("cpus", "CPUs"),
                       ("loadavg_start", "load average at start"),
                       ("loadavg_end", "load average at end"), ("db_bench", "db_bench"),
                       ("rocksdb", "RocksDB"), ("face", "rockpool face"),
                       ("object", "rockpool object"), ("pool_options", "pooled environment"),
                       ("pairs", "pairs per cell"), ("scale", "scale"),
                       ("order", "order")):
        if ctx.get(key) not in (None, ""):
            out.append(f"- {label}: {ctx[key]}")
    for name, about in ctx.get("allocators", {}).items():
        out.append(f"- allocator {name}: {about}")
    return out


LEGEND = (
    "Medians over the runs of each side; ratio = pooled / stock; p = two-sided "
    "Mann-Whitney U test (exact for small samples, as sst_replay's); \"~\" = not "
    f"significant (p > {st.ALPHA}). Verdict: a figure counts as felt when p <= "
    f"{st.ALPHA} and the difference is at least 3% of stock (wall, CPU, ops/s; and "
    "10 ms) or 5% and 1 MiB (peak RSS); \"worse\" when any felt figure "
    "is worse pooled, even if others improved. Minor faults are shown, not judged "
    "(their cost is in CPU and wall). RSS at exit is the last VmRSS sample "
    "(/proc/PID/status) before the process exited, shown, not judged (whether it "
    "lands before or after db_bench frees its memtables decides it); peak RSS is "
    "ru_maxrss, the kernel's high-water mark; peak RSS sampled is the largest VmRSS "
    "sample (every 50 ms; exact but it can miss a short peak), shown, not judged by "
    "itself. The pool's figures come from one more pooled run per cell, not "
    "measured (the measured runs write no statistics): pool peak = its "
    "peak_retained_bytes (the most bytes its contexts held at once, idle or leased: "
    "at least the most it kept that stock would have freed); object resident = the "
    "most of the rockpool object's pages resident at once (/proc/PID/smaps); "
    "allowance = the two summed. Peak RSS target: pooled median <= stock median + "
    "allowance, by the mark (met) or, where the mark exceeds it, by the samples "
    "(met (sampled): with more than one CPU the kernel's mark is approximate, "
    "bench/NOTES.md); a higher peak RSS within it is not counted as worse.")


def render_cells(doc):
    header = (["workload", "allocator"] + figure_header()
              + ["pool peak", "object resident", "RSS allowance", "peak RSS target", "verdict"])
    lines = ["## Stock vs pooled, per workload and allocator", ""]
    lines += _table(header, cell_rows(doc))
    lines += ["", "## Per benchmark phase (db_bench's own figures)", ""]
    lines += _table(["workload", "allocator", "phase", "ops/s stock", "ops/s pooled", "ratio",
                     "p", "p99 stock", "p99 pooled", "ratio", "p"], phase_rows(doc))
    return lines + ["", LEGEND]


def soak_rows(soak):
    rows = []
    for run, allocators in enumerate(st.soak_runs(soak), start=1):
        for alloc, sides in allocators.items():
            for side in ("stock", "pooled"):
                r = sides.get(side)
                if not r:
                    continue
                f = st.soak_figures([tuple(s) for s in r.get("samples", [])])
                ph = r.get("phases", {}).get("readwhilewriting", {})
                rows.append([str(run), alloc, side, fmt(f["rss_1min_kb"], "KiB"),
                             fmt(f["rss_5min_kb"], "KiB"), fmt(f["rss_end_kb"], "KiB"),
                             fmt(f["rss_tail_mean_kb"], "KiB"), fmt(f["rss_peak_kb"], "KiB"),
                             fmt(r.get("maxrss_kb"), "KiB"), fmt(r.get("pool_idle_kb"), "KiB"),
                             fmt(r.get("cpu_s"), "s"), fmt(ph.get("ops"), "ops/s"),
                             fmt(ph.get("p99_us"), "us")])
    return rows


def _tail_mean_gap_kb(sides):
    """Pooled minus stock, mean RSS over the last 5 minutes (KiB); None when
    a side is missing or has no samples."""
    mean = {}
    for side in ("stock", "pooled"):
        samples = (sides.get(side) or {}).get("samples", [])
        mean[side] = st.soak_figures([tuple(s) for s in samples])["rss_tail_mean_kb"]
    if mean["stock"] is None or mean["pooled"] is None:
        return None
    return mean["pooled"] - mean["stock"]


def _mib(kb):
    return f"{'-' if kb < 0 else '+'}{abs(kb) / 1024:.1f}"


def _soak_verdict(diff_kb, idle_kb):
    """Where pooled ends up against stock; above it, whether by no more than
    what the pool holds idle (memory it keeps on purpose; the median over the
    runs that reported it) or by more."""
    if diff_kb <= 0:
        return "at or below stock"
    if idle_kb is None:
        return "above stock"
    return ("above stock, by no more than the pool's idle bytes" if diff_kb <= idle_kb
            else "above stock, by more than the pool's idle bytes")


def soak_verdicts(soak):
    """One line per allocator: pooled minus stock, mean RSS over the last
    5 minutes (the median over the runs, each run's figure beside it), and
    the pool's idle bytes at the end of the first run."""
    lines = []
    runs = st.soak_runs(soak)
    for alloc, sides in runs[0].items():
        gaps = [g for g in (_tail_mean_gap_kb(r.get(alloc, {})) for r in runs) if g is not None]
        if not gaps:
            continue
        if alloc == "jemalloc" and "jemalloc_bg" in runs[0]:
            lines.append(f"- jemalloc (as shipped): pooled {_mib(st.median(gaps))} MiB against "
                         "stock, reported, not judged: without its background thread jemalloc "
                         "purges freed pages only inside malloc and free calls, and pooled "
                         "makes far fewer of them; jemalloc_bg is the judged cell")
            continue
        diff = st.median(gaps)
        each = (f", median of {len(gaps)} runs ({', '.join(_mib(g) for g in gaps)} MiB; "
                f"{sum(g > 0 for g in gaps)} above stock)" if len(gaps) > 1 else "")
        # Each run's idle bytes (None where a run has none); run 1's is shown.
        idle_by_run = [(r.get(alloc, {}).get("pooled") or {}).get("pool_idle_kb") for r in runs]
        idle = idle_by_run[0]
        idles = [i for i in idle_by_run if i is not None]
        lines.append(f"- {alloc}: pooled {_mib(diff)} MiB against stock (mean RSS, last 5 "
                     f"minutes{each}: {_soak_verdict(diff, st.median(idles) if idles else None)})"
                     + (f"; the pool held {idle / 1024:.1f} MiB idle at the end"
                        + (" of run 1" if len(gaps) > 1 else "") if idle is not None else ""))
    return lines


def render_soak(soak):
    lines = [f"## Soak: readwhilewriting, {soak['seconds']} s, codec {soak['codec']}", "",
             soak.get("note", ""), ""]
    if soak.get("command"):
        lines += [f"Each side: `{soak['command']}`", ""]
    lines += _table(["run", "allocator", "side", "RSS 1 min", "RSS 5 min", "RSS end",
                     "RSS mean, last 5 min", "peak RSS (sampled)", "ru_maxrss", "pool idle at end",
                     "CPU user+sys", "ops/s", "p99"],
                    soak_rows(soak))
    verdicts = soak_verdicts(soak)
    return lines + ([""] + verdicts if verdicts else []) + [
        "", "RSS sampled every second from /proc/PID/status (VmRSS); \"-\" where the run was "
        "shorter than that time. The pool's idle bytes come from the pooled process's "
        "ROCKPOOL_STATS line at exit."]


def render_markdown(doc):
    ctx = doc.get("context", {})
    lines = [f"# What users feel: stock vs pooled RocksDB ({ctx.get('mode', 'matrix')})", ""]
    lines += context_lines(ctx) + [""]
    if doc.get("cells"):
        lines += render_cells(doc)
    if doc.get("soak"):
        lines += ([""] if doc.get("cells") else []) + render_soak(doc["soak"])
    return "\n".join(lines).rstrip() + "\n"


def summarize(doc):
    """(Re)computes every cell's summary from its raw runs."""
    for cell in doc.get("cells", []):
        cell["summary"] = st.summarize_cell(cell["runs"], cell["main_phase"], cell.get("pool"))
    return doc


def save_json(doc, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def load_json(path):
    """A document written by save_json; ValueError (one line) if it is not one."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: {e}") from None
    if not isinstance(doc, dict) or doc.get("tool") != "felt_cost":
        raise ValueError(f"{path}: not a felt_cost JSON document")
    if doc.get("format") != FORMAT:
        raise ValueError(f"{path}: format {doc.get('format')}, expected {FORMAT}")
    return summarize(doc)
