"""bench/fixed_cost.py: what a row says about the cost of loading rockpool."""

import unittest

from bench import fixed_cost


def runs(stock_rss, pooled_rss, stock_faults, pooled_faults):
    def side(rss, faults):
        return [{"maxrss_kb": r, "minflt": f} for r, f in zip(rss, faults)]
    return {"stock": side(stock_rss, stock_faults), "pooled": side(pooled_rss, pooled_faults)}


class RowTest(unittest.TestCase):
    def test_within_target(self):
        row = fixed_cost.row("ldb", "glibc", runs([1000, 1010, 990], [1200, 1190, 1210],
                                                  [500, 501, 499], [540, 541, 539]))
        cells = [c.strip() for c in row.strip("|").split("|")]
        self.assertEqual(cells[:2], ["ldb", "glibc"])
        self.assertEqual(cells[2:5], ["1,000", "1,200", "+200"])
        self.assertEqual(cells[6:9], ["500", "540", "+40"])
        self.assertEqual(cells[-1], "within target")

    def test_over_either_target(self):
        rss = runs([1000] * 3, [1300] * 3, [500] * 3, [510] * 3)  # +300 KiB
        self.assertTrue(fixed_cost.row("db_bench", "glibc", rss).endswith("| OVER target |"))
        faults = runs([1000] * 3, [1000] * 3, [500] * 3, [565] * 3)  # +65 faults
        self.assertTrue(fixed_cost.row("db_bench", "glibc", faults).endswith("| OVER target |"))

    def test_the_tools_and_their_arguments(self):
        self.assertEqual(fixed_cost.TOOLS, ("db_bench", "ldb", "sst_dump"))
        self.assertIn("--compression_type=none", fixed_cost.tool_argv("db_bench", "/d"))
        self.assertEqual(fixed_cost.tool_argv("ldb", "/d"), ["/usr/bin/ldb", "--db=/d", "scan"])
        self.assertEqual(fixed_cost.tool_argv("sst_dump", "/d")[1:], ["--file=/d",
                                                                      "--command=check"])


if __name__ == "__main__":
    unittest.main()
