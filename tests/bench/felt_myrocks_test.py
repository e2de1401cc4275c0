"""bench/felt_myrocks.py without a server: sysbench's report parsed (real
sysbench 1.0.20 output against MyRocks in testdata/), its histogram's
percentiles by sysbench's own rule, /proc/PID/stat and status of real
processes, the pool's report line, the command lines, the verdict and the
tables, and the --myrocks flags."""

import os
import tempfile
import time
import unittest

from bench import felt_cli as cli
from bench import felt_dbbench as dbb
from bench import felt_mariadb as mdb
from bench import felt_myrocks as myr
from bench import felt_report as rep
from bench import felt_run
from bench import felt_stats as st

HERE = os.path.dirname(os.path.abspath(__file__))


def testdata(name):
    with open(os.path.join(HERE, "testdata", name), encoding="utf-8") as f:
        return f.read()


class SysbenchTest(unittest.TestCase):
    def test_write_only(self):
        out = myr.parse_sysbench(testdata("sysbench_oltp_write_only.txt"))
        self.assertEqual(out["transactions"], 6325)
        self.assertEqual(out["tps"], 1261.10)
        self.assertEqual(out["ignored_errors"], 97)
        self.assertEqual(out["seconds"], 5.0149)
        self.assertEqual(out["avg_ms"], 3.17)
        # The histogram holds every event, and its p99 by sysbench's rule is
        # the one sysbench itself reported (--percentile=99: 18.61 ms).
        self.assertEqual(out["histogram_events"], 6325)
        self.assertEqual(out["reported_percentile"], [99, 18.61])
        self.assertAlmostEqual(out["p99_us"], 18612.0)
        self.assertAlmostEqual(out["p95_us"], 8428.0)

    def test_read_write(self):
        out = myr.parse_sysbench(testdata("sysbench_oltp_read_write.txt"))
        self.assertEqual((out["transactions"], out["tps"]), (1473, 294.04))
        self.assertEqual(out["histogram_events"], 1473)
        pct, ms = out["reported_percentile"]
        self.assertEqual(pct, 99)
        self.assertEqual(round(out["p99_us"] / 1000, 2), ms)
        self.assertLess(out["p95_us"], out["p99_us"])

    def test_percentile_rule(self):
        rows = [(1.0, 50), (2.0, 45), (3.0, 4), (4.0, 1)]
        self.assertEqual(myr.percentile(rows, 50), 1.0)
        self.assertEqual(myr.percentile(rows, 95), 2.0)  # the 95th event is in 2.0
        self.assertEqual(myr.percentile(rows, 99), 3.0)
        self.assertEqual(myr.percentile(rows, 100), 4.0)
        self.assertIsNone(myr.percentile([], 99))

    def test_histogram_stops_at_its_end(self):
        text = testdata("sysbench_oltp_write_only.txt")
        rows = myr.histogram(text)
        self.assertEqual(rows[0], (0.566, 1))
        self.assertEqual(rows[-1], (108.685, 1))

    def test_bad_reports(self):
        text = testdata("sysbench_oltp_write_only.txt")
        with self.assertRaisesRegex(ValueError, "transactions"):
            myr.parse_sysbench(text.replace("transactions:", "txns:"))
        with self.assertRaisesRegex(ValueError, "histogram"):
            myr.parse_sysbench(text.replace("Latency histogram", "Latency"))
        with self.assertRaisesRegex(ValueError, "transactions"):
            myr.parse_sysbench("")


class ProcTest(unittest.TestCase):
    def test_stat_with_an_awkward_name(self):
        text = ("4242 (my (odd) d) S 1 2 3 0 -1 4194560 500 0 1 0 700 300 0 0 20 0 23 0 "
                "1262401 8797624295424 39846\n")
        self.assertEqual(mdb.parse_proc_stat(text, 100), {"cpu_s": 10.0, "minflt": 500})

    def test_stat_of_this_process(self):
        before = mdb.proc_stat(os.getpid())
        t = time.process_time()
        while time.process_time() - t < 0.3:
            pass
        after = mdb.proc_stat(os.getpid())
        times = os.times()
        self.assertGreaterEqual(after["cpu_s"] - before["cpu_s"], 0.25)
        # The same kernel accounting as times(2), in the same clock ticks.
        self.assertAlmostEqual(after["cpu_s"], times.user + times.system, delta=0.05)

    def test_peak_rss_reset(self):
        pid = os.getpid()
        block = bytearray(64 << 20)
        for i in range(0, len(block), 4096):
            block[i] = 1
        del block
        rss = felt_run.read_status_kb(pid, "VmRSS")
        self.assertGreater(felt_run.read_status_kb(pid, "VmHWM"), rss + 50 * 1024)
        self.assertTrue(mdb.reset_peak_rss(pid))
        self.assertLess(felt_run.read_status_kb(pid, "VmHWM"), rss + 8 * 1024)
        self.assertEqual(felt_run.read_vmrss_kb(pid), felt_run.read_status_kb(pid, "VmRSS"))
        self.assertIsNone(felt_run.read_status_kb(pid, "VmNoSuchField"))

    def test_files_written_by_the_server(self):
        with tempfile.TemporaryDirectory() as d:
            stats = os.path.join(d, "stats")
            self.assertIsNone(myr.pool_leases(stats))
            with open(stats, "w", encoding="utf-8") as f:
                f.write("rockpool report: event=periodic mode=pool | since_last: leases=5 "
                        "created=1 | total: leases=7 created=2 | idle=1 idle_bytes=4096 |\n"
                        "rockpool report: event=exit mode=pool | since_last: leases=3 "
                        "created=0 | total: leases=10 created=2 | idle=2 idle_bytes=8192 |\n")
            self.assertEqual(myr.pool_leases(stats), 10)
            self.assertEqual(dbb.pool_report_kb(stats), {"idle_kb": 8, "peak_retained_kb": None})
            self.assertIsNone(mdb.rocksdb_version(d))
            os.mkdir(os.path.join(d, "#rocksdb"))
            with open(os.path.join(d, "#rocksdb", "LOG"), "w", encoding="utf-8") as f:
                f.write("2026/12/06-09:20:10.019208 14948 RocksDB version: 6.29.5\n")
            self.assertEqual(mdb.rocksdb_version(d), "6.29.5")


TOOLS = mdb.Tools("/usr/sbin/mariadbd", "/usr/bin", "/usr/bin/sysbench")
SIZES = myr.Sizes(seconds=20, tables=4, rows=20000, threads=4)


class CommandTest(unittest.TestCase):
    def test_sysbench(self):
        run = myr.sysbench_argv(TOOLS, "/t/sock", "oltp_write_only", SIZES, "run")
        self.assertEqual(run[:2], ["/usr/bin/sysbench", "oltp_write_only"])
        self.assertEqual(run[-1], "run")
        for flag in ("--mysql-socket=/t/sock", "--tables=4", "--table-size=20000",
                     "--threads=4", "--time=20", "--percentile=99", "--histogram=on",
                     "--rand-seed=1", "--mysql-storage-engine=rocksdb"):
            self.assertIn(flag, run)
        prepare = myr.sysbench_argv(TOOLS, "/t/sock", "oltp_write_only", SIZES, "prepare")
        self.assertEqual(prepare[-1], "prepare")
        self.assertNotIn("--histogram=on", prepare)
        self.assertFalse([a for a in prepare if a.startswith("--time=")])

    def test_server(self):
        s = mdb.Server(TOOLS, "/t/run", "lz4_zstd", myr.server_args("lz4_zstd", "4m"), {}, {})
        argv = s.argv()
        self.assertEqual(argv[:2], ["/usr/sbin/mariadbd", "--no-defaults"])
        for flag in ("--datadir=/t/run/data", "--socket=/t/run/sock", "--skip-networking",
                     "--plugin-load-add=ha_rocksdb", "--default-storage-engine=ROCKSDB"):
            self.assertIn(flag, argv)
        cf = [a for a in argv if a.startswith("--rocksdb-default-cf-options=")]
        self.assertEqual(cf, ["--rocksdb-default-cf-options=compression_per_level="
                              "kLZ4Compression;bottommost_compression=kZSTD;"
                              "compression_opts=-14:1:0;write_buffer_size=4m;"
                              "target_file_size_base=8m"])
        self.assertIn("compression=kZlibCompression",
                      " ".join(mdb.Server(TOOLS, "/t", "zlib", myr.server_args("zlib", "4m"), {}, {}).argv()))

    def test_clients_get_nothing_preloaded(self):
        face = dbb.Face("interpose", TOOLS.mariadbd, "/x/librockpool_interpose.so")
        base = {"PATH": "/usr/bin", "LD_PRELOAD": "/x/y.so", "ROCKPOOL_OPTIONS": "a=1",
                "MALLOC_CONF": "x"}
        with tempfile.TemporaryDirectory() as d:
            b = myr.Bench(TOOLS, face, d, SIZES, base_env=base)
        self.assertEqual(b.client_env, {"PATH": "/usr/bin"})
        with self.assertRaisesRegex(dbb.SetupError, "too long for a socket path"):
            myr.Bench(TOOLS, face, "/" + "d" * 120, SIZES, base_env=base)

    def test_missing_programs(self):
        with self.assertRaisesRegex(dbb.SetupError, "tools/setup.sh --stage=myrocks"):
            mdb.check_tools(mdb.Tools("/nonexistent/mariadbd", "/usr/bin", "/usr/bin/sysbench"))


def _runs(stock, pooled, key="tps"):
    """Runs of one cell: the figures of each side, tps/p99 or one given key."""
    runs = []
    for side, values in (("stock", stock), ("pooled", pooled)):
        for i, v in enumerate(values):
            r = {"side": side, "pair": i, "tps": 1000.0, "p95_us": 5000.0, "p99_us": 9000.0,
                 "cpu_s": 30.0, "cpu_us_per_txn": 1500.0, "hwm_kb": 200000}
            r[key] = v
            if side == "pooled":
                r["pool_leases"] = 300 + i
            runs.append(r)
    return runs


class VerdictTest(unittest.TestCase):
    def verdict(self, runs):
        return st.summarize_figures(runs, myr.METRICS)["verdict"]

    def test_fewer_transactions_is_worse(self):
        runs = _runs([1000, 1010, 1005, 995, 1002], [900, 905, 910, 895, 902])
        self.assertEqual(self.verdict(runs), "worse (transactions/s -10%)")

    def test_higher_p99_is_worse(self):
        runs = _runs([9000, 9100, 9050, 8950, 9020], [9900, 10000, 9950, 9850, 9920], "p99_us")
        self.assertEqual(self.verdict(runs), "worse (p99 +10%)")

    def test_more_transactions_is_better(self):
        runs = _runs([1000, 1010, 1005, 995, 1002], [1100, 1105, 1110, 1095, 1102])
        self.assertEqual(self.verdict(runs), "better (transactions/s +10%)")

    def test_within_the_floor_or_not_judged(self):
        # 1% fewer transactions, significant: below the 3% floor.
        runs = _runs([1000, 1001, 1002, 1003, 1004], [990, 991, 992, 993, 994])
        self.assertEqual(self.verdict(runs), "no felt difference")
        # Peak RSS and CPU are shown, not judged.
        runs = _runs([200000] * 5, [300000, 300001, 300002, 300003, 300004], "hwm_kb")
        self.assertEqual(self.verdict(runs), "no felt difference")


class ReportTest(unittest.TestCase):
    def test_markdown_and_json_round_trip(self):
        ctx = {"mode": "myrocks", "date": "2026-12-06", "mariadb": "10.11.19-MariaDB",
               "rocksdb": "6.29.5", "pairs": 5, "sysbench_version": "1.0.20",
               "sizes": {"tables": 4, "rows": 20000, "threads": 4, "seconds": 20},
               "cf_options": {"lz4": "compression=kLZ4Compression;write_buffer_size=4m"}}
        runs = _runs([1000, 1010, 1005, 995, 1002], [900, 905, 910, 895, 902])
        doc = myr.summarize({"tool": "felt_cost", "format": rep.FORMAT, "context": ctx,
                             "cells": [], "myrocks": [{"workload": "oltp_write_only",
                                                       "codec": "lz4", "allocator": "glibc",
                                                       "runs": runs}]})
        text = myr.render_markdown(doc)
        self.assertIn("- MariaDB: 10.11.19-MariaDB", text)
        self.assertIn("- RocksDB: 6.29.5", text)
        self.assertIn("- sizes: 4 tables x 20000 rows, 4 threads, 20 s per workload", text)
        row = next(s for s in text.splitlines() if s.startswith("| oltp_write_only"))
        self.assertEqual(row, "| oltp_write_only | lz4 | glibc | 1.00k | 902 | 0.90 | 0.008 | "
                         "5.00 ms | 5.00 ms | 1.00 ~ | 1.000 | 9.00 ms | 9.00 ms | 1.00 ~ | "
                         "1.000 | 30.00 s | 30.00 s | 1.00 ~ | 1.000 | 1.50 ms | 1.50 ms | "
                         "1.00 ~ | 1.000 | 195.3 MiB | 195.3 MiB | 1.00 ~ | 1.000 | 302 | "
                         "worse (transactions/s -10%) |")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.json")
            rep.save_json(doc, path)
            again = myr.summarize(rep.load_json(path))
        self.assertEqual(myr.render_markdown(again), text)


class FlagsTest(unittest.TestCase):
    def test_defaults(self):
        a = cli.parse(["--myrocks"])
        self.assertEqual(a.codecs, list(myr.DEFAULT_CODECS))
        self.assertEqual(a.allocators, ["glibc", "jemalloc"])
        self.assertEqual((a.pairs, a.myrocks_seconds, a.myrocks_tables, a.myrocks_rows,
                          a.myrocks_threads), (5, 20, 4, 20000, 4))
        self.assertEqual((a.mariadbd, a.mariadb_bindir, a.sysbench),
                         ("/usr/sbin/mariadbd", "/usr/bin", "/usr/bin/sysbench"))

    def test_quick_and_overrides(self):
        a = cli.parse(["--myrocks", "--quick", "--codecs=zlib,lz4_zstd", "--myrocks_seconds=3",
                       "--pairs=2", "--sysbench=bin/sysbench"], cwd="/home/u")
        self.assertEqual((a.codecs, a.allocators, a.pairs, a.myrocks_seconds, a.myrocks_rows),
                         (["zlib", "lz4_zstd"], ["glibc"], 2, 3, myr.ROWS[1]))
        self.assertEqual(a.sysbench, "/home/u/bin/sysbench")

    def test_errors(self):
        for argv, message in ((["--myrocks", "--codecs=snappy"], "unknown codec 'snappy'"),
                              (["--myrocks", "--workloads=sst"], "--workloads is db_bench's"),
                              (["--myrocks", "--soak"], "--soak is db_bench's"),
                              (["--myrocks", "--myrocks_seconds=0"], "expected 1 to"),
                              (["--myrocks", "--allocators=ptmalloc"], "unknown allocator")):
            with self.assertRaisesRegex(cli.UsageError, message):
                cli.parse(argv)


if __name__ == "__main__":
    unittest.main()
