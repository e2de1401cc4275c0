"""bench/felt_report.py and felt_plot.heatmap_grid: the Markdown tables, the
JSON round trip (a re-render from the file is identical), and the heatmap's
grid. No matplotlib needed."""

import json
import os
import tempfile
import unittest

from bench import felt_plot
from bench import felt_report as rep
from bench import felt_stats as st


def run(side, pair, wall, rss_kb, ops):
    return {"side": side, "pair": pair, "seq": 0, "wall_s": wall, "user_s": wall * 0.6,
            "sys_s": wall * 0.2, "cpu_s": wall * 0.8, "minflt": int(wall * 1000),
            "majflt": 0, "maxrss_kb": rss_kb, "rss_exit_kb": rss_kb - 1024,
            "phases": {"fillrandom": {"ops": ops, "p99_us": 20.0 + pair},
                       "compact": {"ops": 3}}}


def cell(workload, allocator, stock_wall, pooled_wall, pairs=5, pool=None):
    runs = []
    for p in range(pairs):
        runs.append(run("stock", p, stock_wall + 0.01 * p, 65536, 100000 - p))
        runs.append(run("pooled", p, pooled_wall + 0.01 * p, 65536 + 4 * p, 100000 + p))
    c = {"workload": workload, "allocator": allocator, "main_phase": "fillrandom", "runs": runs}
    if pool:
        c["pool"] = pool
    c["summary"] = st.summarize_cell(runs, "fillrandom", pool)
    return c


def doc():
    return {"tool": "felt_cost", "format": rep.FORMAT,
            "context": {"mode": "matrix", "host": "test", "pairs": 5, "scale": 1,
                        "allocators": {"glibc": "glibc's malloc"}},
            "cells": [cell("sst_lz4hc", "jemalloc", 16.0, 3.0,
                           pool={"peak_retained_kb": 256, "object_rss_kb": 392}),
                      cell("sst_zstd", "glibc", 2.0, 2.0),
                      cell("sst_zstd", "jemalloc", 2.0, 2.5)]}


class MarkdownTest(unittest.TestCase):
    def test_table(self):
        md = rep.render_markdown(doc())
        lines = md.splitlines()
        self.assertEqual(lines[0], "# What users feel: stock vs pooled RocksDB (matrix)")
        self.assertIn("- allocator glibc: glibc's malloc", lines)
        header = next(s for s in lines if s.startswith("| workload | allocator | wall stock"))
        self.assertEqual(header.count("|"), 36)  # 2 + 7 figures x 4 + 4 pool columns + verdict
        lz4hc = next(s for s in lines if s.startswith("| sst_lz4hc | jemalloc |"))
        cells = [c.strip() for c in lz4hc.strip("|").split("|")]
        self.assertEqual(cells[2:6], ["16.02 s", "3.02 s", "0.19", "0.008"])
        self.assertEqual(cells[14:16], ["64.0 MiB", "64.0 MiB"])
        self.assertEqual(cells[-1], "better (wall -81%, CPU user+sys -81%)")
        same = next(s for s in lines if s.startswith("| sst_zstd | glibc |"))
        self.assertIn("| 1.00 ~ | 1.000 |", same)
        self.assertTrue(same.endswith("| no felt difference |"))
        worse = next(s for s in lines if s.startswith("| sst_zstd | jemalloc |"))
        self.assertIn("worse (wall +25%, CPU user+sys +25%)", worse)
        self.assertIn("| sst_lz4hc | jemalloc | compact | 3 | 3 | 1.00 ~ | 1.000 | - | - | - | - |",
                      lines)

    def test_formats(self):
        self.assertEqual(rep.fmt(None, "s"), "-")
        self.assertEqual(rep.fmt(1536, "KiB"), "1.5 MiB")
        self.assertEqual(rep.fmt(1450000, "count"), "1.45M")
        self.assertEqual(rep.fmt(69151, "ops/s"), "69.2k")
        self.assertEqual(rep.fmt(999, "count"), "999")
        self.assertEqual(rep.fmt(3043.11, "us"), "3.04 ms")
        self.assertEqual(rep.fmt_ratio({"ratio": 0.5, "p": 0.2}), "0.50 ~")
        self.assertEqual(rep.fmt_ratio({"ratio": 0.5, "p": 0.05}), "0.50")

    def test_soak(self):
        d = {"tool": "felt_cost", "format": rep.FORMAT, "context": {"mode": "soak"},
             "cells": [], "soak": {"seconds": 400, "codec": "zlib", "note": "concurrently",
                                   "allocators": {"glibc": {
                                       "stock": {"samples": [[0, 1024], [60, 2048], [300, 4096],
                                                             [400, 3072]],
                                                 "maxrss_kb": 4100, "cpu_s": 12.5,
                                                 "phases": {"readwhilewriting": {
                                                     "ops": 5000, "p99_us": 9.5}}},
                                       "pooled": {"samples": [[0, 1024], [60, 2048], [300, 2048],
                                                              [400, 2048]],
                                                  "maxrss_kb": 2100, "cpu_s": 11.0,
                                                  "pool_idle_kb": 512,
                                                  "phases": {"readwhilewriting": {
                                                      "ops": 6000, "p99_us": 8.0}}}}}}}
        md = rep.render_markdown(d)
        # Last 5 minutes of a 400 s run: the samples at 300 s and 400 s.
        self.assertIn("| 1 | glibc | stock | 2.0 MiB | 4.0 MiB | 3.0 MiB | 3.5 MiB | 4.0 MiB | "
                      "4.0 MiB | - | 12.50 s | 5.00k | 9.5 us |", md)
        self.assertIn("| 1 | glibc | pooled | 2.0 MiB | 2.0 MiB | 2.0 MiB | 2.0 MiB | 2.0 MiB | "
                      "2.1 MiB | 0.5 MiB | 11.00 s | 6.00k | 8.0 us |", md)
        self.assertIn("- glibc: pooled -1.5 MiB against stock (mean RSS, last 5 minutes: at or "
                      "below stock); the pool held 0.5 MiB idle at the end", md)
        self.assertIn("concurrently", md)
        self.assertNotIn("Stock vs pooled, per workload", md)

    def test_soak_runs_judged_on_their_median(self):
        def side(last_kb):  # a 400 s run whose last 5 minutes average last_kb
            return {"samples": [[0, 1024], [300, last_kb], [400, last_kb]]}

        def run(stock_kb, pooled_kb):
            return {"jemalloc": {"stock": side(stock_kb), "pooled": side(pooled_kb)}}

        first = run(4096, 5120)
        first["jemalloc"]["pooled"]["pool_idle_kb"] = 614
        soak = {"seconds": 400, "codec": "zlib", "allocators": first,
                "more_runs": [run(4096, 3072), run(4096, 4608)]}

        def render():
            return rep.render_markdown({"tool": "felt_cost", "format": rep.FORMAT,
                                        "context": {"mode": "soak"}, "cells": [], "soak": soak})

        md = render()
        # Gaps +1.0, -1.0, +0.5 MiB: the median +0.5 judges, each run is shown.
        self.assertIn("- jemalloc: pooled +0.5 MiB against stock (mean RSS, last 5 minutes, "
                      "median of 3 runs (+1.0, -1.0, +0.5 MiB; 2 above stock): above stock, "
                      "by no more than the pool's idle bytes); "
                      "the pool held 0.6 MiB idle at the end of run 1", md)
        # The same gaps against a pool that held less than the median gap.
        first["jemalloc"]["pooled"]["pool_idle_kb"] = 256
        md = render()
        self.assertIn("+0.5 MiB; 2 above stock): above stock, by more than the pool's idle "
                      "bytes); the pool held 0.2 MiB idle", md)
        del first["jemalloc"]["pooled"]["pool_idle_kb"]
        md = render()
        self.assertIn("2 above stock): above stock)", md)
        self.assertIn("| 3 | jemalloc | pooled | 4.5 MiB | 4.5 MiB | 4.5 MiB | 4.5 MiB |", md)

    def test_soak_judges_jemalloc_with_its_background_thread(self):
        def side(last_kb):
            return {"samples": [[0, 1024], [300, last_kb], [400, last_kb]]}
        soak = {"seconds": 400, "codec": "zlib", "allocators": {
            "jemalloc_bg": {"stock": side(4096), "pooled": side(4096 + 307)},
            "jemalloc": {"stock": side(4096), "pooled": side(4096 + 2048)}}}
        soak["allocators"]["jemalloc_bg"]["pooled"]["pool_idle_kb"] = 614
        md = rep.render_markdown({"tool": "felt_cost", "format": rep.FORMAT,
                                  "context": {"mode": "soak"}, "cells": [], "soak": soak})
        self.assertIn("- jemalloc_bg: pooled +0.3 MiB against stock (mean RSS, last 5 minutes: "
                      "above stock, by no more than the pool's idle bytes)", md)
        self.assertIn("- jemalloc (as shipped): pooled +2.0 MiB against stock, reported, not "
                      "judged", md)


class JsonTest(unittest.TestCase):
    def test_round_trip(self):
        d = doc()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "felt.json")
            rep.save_json(d, path)
            with open(path, encoding="utf-8") as f:
                raw = json.load(f)
            self.assertEqual(len(raw["cells"][0]["runs"]), 10)
            wall = raw["cells"][0]["summary"]["metrics"]["wall_s"]
            self.assertAlmostEqual(wall["ratio"], 3.02 / 16.02)
            self.assertAlmostEqual(wall["p"], 2 / 252)
            # Summaries are recomputed from the runs on load: edit one, it is redone.
            raw["cells"][0]["summary"] = {}
            with open(path, "w", encoding="utf-8") as f:
                json.dump(raw, f)
            again = rep.load_json(path)
        self.assertEqual(rep.render_markdown(again), rep.render_markdown(d))
        # ... with the pool's figures: the allowance is redone too.
        self.assertEqual(again["cells"][0]["summary"]["rss_allowance_kb"], 648)
        self.assertEqual(again["cells"][0]["summary"]["rss_target"], "met")

    def test_not_ours(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "x.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write('{"benchmarks": []}')
            with self.assertRaisesRegex(ValueError, "not a felt_cost JSON document"):
                rep.load_json(path)
            with self.assertRaisesRegex(ValueError, "missing.json"):
                rep.load_json(os.path.join(tmp, "missing.json"))


class HeatmapGridTest(unittest.TestCase):
    def test_grid(self):
        rows, cols, ratio, sig = felt_plot.heatmap_grid(doc()["cells"])
        self.assertEqual(rows, ["sst_lz4hc", "sst_zstd"])
        self.assertEqual(cols, ["jemalloc", "glibc"])
        self.assertAlmostEqual(ratio[0][0], 3.02 / 16.02)
        self.assertIsNone(ratio[0][1])  # sst_lz4hc was not run under glibc
        self.assertEqual(sig, [[True, False], [True, False]])
        lo, hi = felt_plot.color_limits(ratio)
        self.assertAlmostEqual(hi, 16.02 / 3.02)
        self.assertAlmostEqual(lo * hi, 1.0)
        self.assertEqual(felt_plot.color_limits([[1.0, None]]), (1 / 1.1, 1.1))


if __name__ == "__main__":
    unittest.main()
