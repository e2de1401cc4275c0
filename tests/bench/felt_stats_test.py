"""bench/felt_stats.py: medians, the Mann-Whitney U test (SciPy's; without
ties the values tests/tools/sst_replay/replay_lib_test.cc checks for
sst_replay's C++ `MannWhitneyP`), per-cell summaries and the verdict."""

import math
import unittest

from bench import felt_stats as st


def runs(stock, pooled, key="wall_s"):
    out = [{"side": "stock", key: v, "phases": {}} for v in stock]
    return out + [{"side": "pooled", key: v, "phases": {}} for v in pooled]


class MannWhitneyTest(unittest.TestCase):
    def test_matches_sst_replay(self):
        # Fully separated samples: the smallest p-values benchstat can print.
        self.assertAlmostEqual(st.mann_whitney_p([1, 2, 3], [4, 5, 6]), 0.100, delta=1e-9)
        self.assertAlmostEqual(st.mann_whitney_p([6, 5, 4], [1, 2, 3]), 0.100, delta=1e-9)
        self.assertAlmostEqual(st.mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 2.0 / 252,
                               delta=1e-9)
        self.assertAlmostEqual(st.mann_whitney_p([1, 3, 5], [2, 4, 6]), 0.7, delta=1e-9)
        self.assertEqual(st.mann_whitney_p([1], []), 1.0)
        a = list(range(30))
        b = [i + 100 for i in range(30)]
        self.assertLess(st.mann_whitney_p(a, b), 1e-6)  # normal approximation

    def test_ties_and_symmetry(self):
        # All equal: U is half the pairs, the whole distribution is in the tail.
        self.assertEqual(st.mann_whitney_p([2, 2, 2], [2, 2, 2]), 1.0)
        a, b = [1.0, 2.0, 2.0, 5.0, 7.0], [2.0, 3.0, 8.0, 9.0, 9.0]
        self.assertAlmostEqual(st.mann_whitney_p(a, b), st.mann_whitney_p(b, a), delta=1e-12)
        self.assertLessEqual(st.mann_whitney_p(a, b), 1.0)
        # One pair each can never be significant.
        self.assertEqual(st.mann_whitney_p([1], [2]), 1.0)

    def test_ties_take_the_tie_corrected_normal_approximation(self):
        # Ranks 1, 3, 3, 5, 6 | 3, 7, 8, 9, 10 (three 2s share rank 3): U = 22
        # of 25 pairs. SciPy's exact distribution assumes no ties, so the p is
        # the normal approximation with the tie-corrected variance and a
        # continuity correction (sst_replay's exact count says 0.056).
        a, b = [1, 2, 2, 3, 4], [2, 5, 6, 7, 8]
        n = 10
        sd = math.sqrt(25 / 12 * ((n + 1) - (3 ** 3 - 3) / (n * (n - 1))))
        z = (22 - 12.5 - 0.5) / sd
        self.assertAlmostEqual(st.mann_whitney_p(a, b), math.erfc(z / math.sqrt(2)), delta=1e-12)
        self.assertAlmostEqual(st.mann_whitney_p(a, b), 0.0570, delta=1e-4)


class MedianTest(unittest.TestCase):
    def test_median(self):
        self.assertEqual(st.median([3, 1, 2]), 2)
        self.assertEqual(st.median([4, 1, 3, 2]), 2.5)
        self.assertIsNone(st.median([]))

    def test_compare(self):
        c = st.compare([2.0, 2.2, 2.1], [1.0, 1.1, 1.05])
        self.assertEqual(c["stock_median"], 2.1)
        self.assertEqual(c["pooled_median"], 1.05)
        self.assertAlmostEqual(c["ratio"], 0.5)
        self.assertAlmostEqual(c["p"], 0.1)
        self.assertIsNone(st.compare([], [1.0])["ratio"])


class VerdictTest(unittest.TestCase):
    def summary(self, stock, pooled, key="wall_s"):
        return st.summarize_cell(runs(stock, pooled, key), "fillrandom")

    def test_better(self):
        s = self.summary([10, 11, 12, 13, 14], [2, 3, 3, 2, 3])
        self.assertTrue(s["verdict"].startswith("better (wall -"), s["verdict"])

    def test_worse(self):
        s = self.summary([2, 3, 3, 2, 3], [10, 11, 12, 13, 14])
        self.assertTrue(s["verdict"].startswith("worse (wall +"), s["verdict"])

    def test_not_significant_is_no_difference(self):
        s = self.summary([1, 5, 2, 4, 3], [2, 4, 3, 5, 1])
        self.assertEqual(s["verdict"], "no felt difference")
        # A single pair is never significant, however far apart.
        self.assertEqual(self.summary([10], [1])["verdict"], "no felt difference")

    def test_significant_but_too_small_to_feel(self):
        # 1% slower in all 5 pairs: significant, below the 3% threshold.
        s = self.summary([1.000, 1.001, 1.002, 1.003, 1.004], [1.010, 1.011, 1.012, 1.013, 1.014])
        self.assertLessEqual(s["metrics"]["wall_s"]["p"], 0.05)
        self.assertEqual(s["verdict"], "no felt difference")
        # RSS: +5% but only 0.5 MiB is below the 1 MiB floor.
        s = self.summary([10000] * 5, [10500, 10510, 10520, 10530, 10540], "maxrss_kb")
        self.assertEqual(s["verdict"], "no felt difference")

    def test_regression_is_never_a_saving(self):
        r = runs([10, 11, 12, 13, 14], [2, 3, 3, 2, 3])
        for i, x in enumerate(r):
            x["maxrss_kb"] = 20000 if x["side"] == "stock" else 30000 + i
        v = st.summarize_cell(r, "fillrandom")["verdict"]
        self.assertTrue(v.startswith("worse (peak RSS +"), v)
        self.assertIn("better: wall", v)

    def test_peak_rss_within_the_allowance_is_not_worse(self):
        # Pooled +3 MiB (10%) in every pair: felt, unless what pooled holds
        # on purpose (the pool's peak retained bytes + the object's pages)
        # covers it.
        r = runs([30000, 30010, 30020, 30030, 30040], [33000, 33010, 33020, 33030, 33040],
                 "maxrss_kb")
        within = st.summarize_cell(r, "fillrandom", {"peak_retained_kb": 2800,
                                                     "object_rss_kb": 256, "idle_exit_kb": 0})
        self.assertEqual(within["rss_allowance_kb"], 3056)
        self.assertEqual(within["rss_target"], "met")
        self.assertEqual(within["verdict"], "no felt difference")
        beyond = st.summarize_cell(r, "fillrandom", {"peak_retained_kb": 2000,
                                                     "object_rss_kb": 256, "idle_exit_kb": 0})
        self.assertEqual(beyond["rss_target"], "not met")
        self.assertTrue(beyond["verdict"].startswith("worse (peak RSS +10%"), beyond["verdict"])
        # Without the pool's figures nothing is allowed.
        unknown = st.summarize_cell(r, "fillrandom", {"peak_retained_kb": None,
                                                      "object_rss_kb": 256})
        self.assertIsNone(unknown["rss_allowance_kb"])
        self.assertIsNone(unknown["rss_target"])
        self.assertTrue(unknown["verdict"].startswith("worse (peak RSS"), unknown["verdict"])

    def test_the_sampled_peak_can_meet_the_allowance_the_mark_misses(self):
        # The kernel's mark says pooled +3 MiB; the VmRSS samples +0.5 MiB,
        # within an allowance of 0.6 MiB: met by the samples, not worse.
        r = runs([30000, 30010, 30020, 30030, 30040], [33000, 33010, 33020, 33030, 33040],
                 "maxrss_kb")
        for x, sampled in zip(r, [29000] * 5 + [29500] * 5):
            x["rss_max_sampled_kb"] = sampled
        pool = {"peak_retained_kb": 300, "object_rss_kb": 300}
        s = st.summarize_cell(r, "fillrandom", pool)
        self.assertEqual(s["metrics"]["rss_max_sampled_kb"]["pooled_median"], 29500)
        self.assertEqual(s["rss_target"], "met (sampled)")
        self.assertEqual(s["verdict"], "no felt difference")
        # Samples beyond the allowance too: worse, by the mark's figure.
        for x in r[5:]:
            x["rss_max_sampled_kb"] = 31000
        s = st.summarize_cell(r, "fillrandom", pool)
        self.assertEqual(s["rss_target"], "not met")
        self.assertTrue(s["verdict"].startswith("worse (peak RSS +10%"), s["verdict"])

    def test_ops_higher_is_better_and_faults_are_not_judged(self):
        r = []
        for side, ops, flt in (("stock", 100, 1000), ("pooled", 200, 9000)):
            for i in range(5):
                r.append({"side": side, "minflt": flt + i,
                          "phases": {"fillrandom": {"ops": ops + i, "p99_us": 5.0}}})
        s = st.summarize_cell(r, "fillrandom")
        self.assertEqual(s["verdict"], "better (ops/s +98%)")
        self.assertEqual(s["phases"]["fillrandom"]["ops"]["stock_median"], 102)
        self.assertEqual(s["phases"]["fillrandom"]["p99_us"]["ratio"], 1.0)


class SoakTest(unittest.TestCase):
    def test_figures(self):
        samples = [(0.0, 1000), (59.5, 2000), (60.4, 3000), (300.2, 5000), (400.0, 4000)]
        f = st.soak_figures(samples)
        self.assertEqual(f, {"rss_1min_kb": 3000, "rss_5min_kb": 5000, "rss_end_kb": 4000,
                             "rss_peak_kb": 5000, "rss_tail_mean_kb": 4500})
        # The mean over the last 5 minutes takes the samples from 100 s on
        # (300.2 s and 400 s); a 340 s window reaches back to 60.4 s.
        self.assertEqual(st.soak_figures(samples, window_s=340)["rss_tail_mean_kb"], 4000)
        short = st.soak_figures([(0.0, 10), (1.0, 20)])
        self.assertIsNone(short["rss_1min_kb"])
        self.assertEqual(short["rss_end_kb"], 20)


if __name__ == "__main__":
    unittest.main()
