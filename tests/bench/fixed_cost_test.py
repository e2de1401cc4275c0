"""bench/fixed_cost.py: what a row says about the cost of loading rockpool."""

import unittest

from bench import fixed_cost


def runs(stock_rss, pooled_rss, stock_faults, pooled_faults, empty_rss=None, empty_faults=None):
    """The runs of a cell; the empty control's default to stock's."""
    def side(rss, faults):
        return [{"maxrss_kb": r, "minflt": f} for r, f in zip(rss, faults)]
    return {"stock": side(stock_rss, stock_faults),
            "empty": side(empty_rss or stock_rss, empty_faults or stock_faults),
            "pooled": side(pooled_rss, pooled_faults)}


class RowTest(unittest.TestCase):
    def test_within_target(self):
        row = fixed_cost.row("ldb", "glibc", runs([1000, 1010, 990], [1200, 1190, 1210],
                                                  [500, 501, 499], [540, 541, 539]))
        cells = [c.strip() for c in row.strip("|").split("|")]
        self.assertEqual(len(cells), fixed_cost.HEADER.count("|") - 1)
        self.assertEqual(cells[:2], ["ldb", "glibc"])
        self.assertEqual(cells[2:6], ["1,000", "1,000", "1,200", "+200"])
        self.assertEqual(cells[8:12], ["500", "500", "540", "+40"])
        self.assertEqual(cells[-1], "within target")

    def test_the_control_object_is_reported_not_judged(self):
        # rockpool +300 KiB over stock, of which an empty preloaded object
        # accounts for 200: still over the target, and the row says both.
        cell = runs([1000] * 3, [1300] * 3, [500] * 3, [510] * 3,
                    empty_rss=[1200] * 3, empty_faults=[505] * 3)
        cells = [c.strip() for c in fixed_cost.row("ldb", "glibc", cell).strip("|").split("|")]
        self.assertEqual(cells[2:8], ["1,000", "1,200", "1,300", "+300", cells[6], "+100"])
        self.assertEqual(cells[8:11], ["500", "505", "510"])
        self.assertEqual(cells[13], "+5")
        self.assertEqual(cells[-1], "OVER target")

    def test_sides_rotate(self):
        orders = [fixed_cost.alternating(i) for i in range(3)]
        self.assertEqual(sorted(orders[0]), sorted(fixed_cost.SIDES))
        self.assertEqual({o[0] for o in orders}, set(fixed_cost.SIDES))
        self.assertEqual(fixed_cost.alternating(3), orders[0])

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
