"""Pictures of the felt-cost benchmark (bench/felt_cost.py), with matplotlib's
Agg backend (no display needed; Debian's python3-matplotlib, installed by
`bash tools/setup.sh --stage=bench`).

matplotlib is imported only when a picture is drawn: the unit tests import
this module (heatmap_grid) on machines without it.
"""

import math

from bench import debian_python
from bench import felt_stats as st


def pyplot():
    """matplotlib.pyplot on the Agg backend; ImportError with the fix in words."""
    matplotlib = debian_python.import_module("matplotlib", "python3-matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def heatmap_grid(cells):
    """(rows, columns, ratio[r][c], significant[r][c]) of the pooled/stock
    median wall ratio: rows = workloads, columns = allocators, both in the
    order they were run; None where a cell was not run."""
    rows, cols = [], []
    for c in cells:
        if c["workload"] not in rows:
            rows.append(c["workload"])
        if c["allocator"] not in cols:
            cols.append(c["allocator"])
    ratio = [[None] * len(cols) for _ in rows]
    sig = [[False] * len(cols) for _ in rows]
    for c in cells:
        wall = c["summary"]["metrics"]["wall_s"]
        r, k = rows.index(c["workload"]), cols.index(c["allocator"])
        ratio[r][k] = wall["ratio"]
        sig[r][k] = st.significant(wall)
    return rows, cols, ratio, sig


def color_limits(ratio):
    """Symmetric in log scale around 1.0 (x0.5 as far as x2), at least x1.1."""
    spread = 1.1
    for row in ratio:
        for v in row:
            if v:
                spread = max(spread, v, 1 / v)
    return 1 / spread, spread


def write_heatmap(cells, path, title):
    plt = pyplot()
    from matplotlib import colors
    rows, cols, ratio, sig = heatmap_grid(cells)
    lo, hi = color_limits(ratio)
    # log2 of the ratio, so x0.5 and x2 are equally far from white.
    data = [[math.log2(v) if v else float("nan") for v in row] for row in ratio]
    fig, ax = plt.subplots(figsize=(1.6 * len(cols) + 3, 0.45 * len(rows) + 1.8))
    cmap = plt.get_cmap("RdBu_r").copy()
    cmap.set_bad("#dddddd")
    norm = colors.TwoSlopeNorm(vmin=math.log2(lo), vcenter=0.0, vmax=math.log2(hi))
    im = ax.imshow(data, cmap=cmap, norm=norm, aspect="auto")
    ax.set_xticks(range(len(cols)), labels=cols)
    ax.set_yticks(range(len(rows)), labels=rows)
    for r in range(len(rows)):
        for k in range(len(cols)):
            v = ratio[r][k]
            text = "n/a" if v is None else (f"{v:.2f}" + ("" if sig[r][k] else " ~"))
            strong = v is not None and abs(math.log2(v)) > 0.6 * math.log2(hi)
            ax.text(k, r, text, ha="center", va="center", fontsize=9,
                    color="white" if strong else "black")
    bar = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
    ticks = [t for t in (0.25, 0.5, 0.8, 1.0, 1.25, 2.0, 4.0) if lo <= t <= hi]
    bar.set_ticks([math.log2(t) for t in ticks], labels=[f"{t:g}" for t in ticks])
    bar.set_label("pooled / stock median wall")
    ax.set_title(title + "\n(< 1: pooled faster; ~ = not significant, p > 0.05)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_soak_png(soak, path, title):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 5))
    palette = plt.get_cmap("tab10")
    for run, allocators in enumerate(st.soak_runs(soak)):
        for i, (alloc, sides) in enumerate(allocators.items()):
            for side, style in (("stock", "-"), ("pooled", "--")):
                samples = sides.get(side, {}).get("samples", [])
                if samples:
                    # Later runs fainter and unlabelled: one legend entry per line style.
                    ax.plot([s[0] for s in samples], [s[1] / 1024 for s in samples], style,
                            color=palette(i % 10), alpha=1.0 if run == 0 else 0.35,
                            label=f"{alloc} {side}" if run == 0 else None)
    ax.set_xlabel("seconds")
    ax.set_ylabel("RSS (MiB, VmRSS)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
