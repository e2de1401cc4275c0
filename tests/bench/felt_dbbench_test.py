"""bench/felt_dbbench.py: db_bench's output parsed (real Debian 7.8.3 output
in testdata/), the workloads' command lines, each side's environment, the
native face's OPTIONS file, and the error for an allocator not installed."""

import os
import unittest

from bench import felt_dbbench as dbb

HERE = os.path.dirname(os.path.abspath(__file__))
JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
TCMALLOC = "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"
LEGACY = dbb.Face("preload", "/usr/bin/db_bench", "/x/librockpool_preload.so")
NATIVE = dbb.Face("native", "/opt/r/bin/db_bench", "/x/librockpool_native.so", "/opt/r/lib")


def testdata(name):
    with open(os.path.join(HERE, "testdata", name), encoding="utf-8") as f:
        return f.read()


class ParseTest(unittest.TestCase):
    def test_fill_and_compact(self):
        out = dbb.parse_output(testdata("db_bench_fillrandom_compact.txt"),
                               testdata("db_bench_fillrandom_compact.stderr.txt"))
        self.assertEqual(out["version"], "7.8.3")  # db_bench prints its header on stderr
        self.assertEqual(list(out["phases"]), ["fillrandom", "compact"])
        fill = out["phases"]["fillrandom"]
        self.assertEqual(fill, {"micros_op": 10.561, "ops": 94636, "seconds": 0.053,
                                "operations": 5000, "p50_us": 5.13, "p99_us": 35.31})
        # One operation, no histogram: no percentiles, and none borrowed.
        self.assertEqual(out["phases"]["compact"], {"micros_op": 26137.0, "ops": 38,
                                                    "seconds": 0.026, "operations": 1})

    def test_readrandom(self):
        out = dbb.parse_output(testdata("db_bench_readrandom.txt"))
        self.assertEqual(out["phases"]["readrandom"]["ops"], 447187)
        self.assertEqual(out["phases"]["readrandom"]["p99_us"], 25.69)

    def test_readwhilewriting_with_threads(self):
        out = dbb.parse_output(testdata("db_bench_readwhilewriting.txt"))
        ph = out["phases"]["readwhilewriting"]
        self.assertEqual((ph["ops"], ph["operations"], ph["p99_us"]), (1103329, 2240992, 3.16))

    def test_nothing(self):
        self.assertEqual(dbb.parse_output("Invalid argument: x\n"),
                         {"version": None, "phases": {}})


def flags(args):
    return dict(a[2:].split("=", 1) for a in args)


class WorkloadTest(unittest.TestCase):
    def test_names_and_groups(self):
        self.assertEqual(len(dbb.WORKLOAD_NAMES), 17)
        names = [w.name for w in dbb.parse_workloads("sst_zstd,blob,sst_zstd")]
        self.assertEqual(names, ["sst_zstd", "blob_zstd", "blob_zlib", "blob_lz4", "blob_lz4hc"])
        self.assertEqual(len(dbb.parse_workloads("all")), 17)
        with self.assertRaisesRegex(ValueError, "unknown workload 'sst_snappy'"):
            dbb.parse_workloads("sst_snappy")
        with self.assertRaises(ValueError):
            dbb.parse_workloads(" , ")

    def test_sst(self):
        f = flags(dbb.Workload("sst_lz4hc").run_args(1))
        self.assertEqual(f["benchmarks"], "fillrandom,compact")
        self.assertEqual((f["num"], f["value_size"], f["compression_type"]),
                         ("200000", "200", "lz4hc"))
        self.assertEqual((f["compression_ratio"], f["histogram"], f["seed"]), ("0.5", "1", "1"))
        d = flags(dbb.Workload("sst_zstd_dict").run_args(0.5))
        self.assertEqual((d["compression_type"], d["compression_max_dict_bytes"], d["num"]),
                         ("zstd", "16384", "100000"))
        self.assertIn("compression_zstd_max_train_bytes", d)
        self.assertTrue(dbb.Workload("sst_none").fresh_db)
        self.assertIsNone(dbb.Workload("sst_none").fill_args(1))

    def test_blob_and_threads(self):
        b = flags(dbb.Workload("blob_zlib").run_args(1))
        self.assertEqual((b["enable_blob_files"], b["min_blob_size"], b["blob_compression_type"],
                          b["value_size"], b["num"]), ("1", "512", "zlib", "1024", "60000"))
        t = flags(dbb.Workload("threads_zstd").run_args(1))
        self.assertEqual((t["threads"], t["max_background_jobs"], t["subcompactions"]),
                         ("8", "8", "4"))

    def test_reads_use_a_db_filled_once(self):
        w = dbb.Workload("read_lz4hc")
        self.assertFalse(w.fresh_db)
        self.assertEqual(w.main_phase, "readrandom")
        r = flags(w.run_args(1))
        self.assertEqual((r["benchmarks"], r["use_existing_db"], r["readonly"], r["cache_size"]),
                         ("readrandom", "1", "1", "1048576"))
        self.assertEqual(flags(w.fill_args(1))["compression_type"], "lz4hc")
        s = dbb.Workload("secondary_zlib")
        sf = flags(s.run_args(1))
        self.assertEqual((sf["use_compressed_secondary_cache"],
                          sf["compressed_secondary_cache_compression_type"]), ("1", "zlib"))
        self.assertEqual(flags(s.fill_args(1))["compression_type"], "none")

    def test_soak(self):
        f = flags(dbb.soak_args("zlib", 600, 1))
        self.assertEqual((f["benchmarks"], f["threads"], f["duration"], f["use_existing_db"]),
                         ("readwhilewriting", "8", "600", "1"))


class EnvTest(unittest.TestCase):
    BASE = {"PATH": "/bin", "LD_PRELOAD": "/evil.so", "ROCKPOOL_STATS": "/tmp/s",
            "MALLOC_CONF": "junk:true", "HOME": "/root"}

    def test_stock(self):
        self.assertEqual(dbb.side_env(self.BASE, "glibc", "stock", LEGACY),
                         {"PATH": "/bin", "HOME": "/root"})
        e = dbb.side_env(self.BASE, "jemalloc", "stock", LEGACY)
        self.assertEqual(e["LD_PRELOAD"], JEMALLOC)
        self.assertNotIn("MALLOC_CONF", e)
        self.assertNotIn("ROCKPOOL_OPTIONS", e)

    def test_pooled_allocator_first(self):
        e = dbb.side_env(self.BASE, "tcmalloc", "pooled", LEGACY)
        self.assertEqual(e["LD_PRELOAD"], f"{TCMALLOC} /x/librockpool_preload.so")
        self.assertEqual(e["ROCKPOOL_OPTIONS"], "max_idle_per_key=8")
        self.assertNotIn("ROCKPOOL_STATS", e)
        g = dbb.side_env(self.BASE, "glibc", "pooled", LEGACY)
        self.assertEqual(g["LD_PRELOAD"], "/x/librockpool_preload.so")

    def test_tuned_jemalloc_on_both_sides(self):
        for side in ("stock", "pooled"):
            e = dbb.side_env(self.BASE, "jemalloc_tuned", side, LEGACY)
            self.assertEqual(e["MALLOC_CONF"], "tcache_max:524288")
            self.assertTrue(e["LD_PRELOAD"].startswith(JEMALLOC))

    def test_background_thread_jemalloc_on_both_sides(self):
        for side in ("stock", "pooled"):
            e = dbb.side_env(self.BASE, "jemalloc_bg", side, LEGACY)
            self.assertEqual(e["MALLOC_CONF"], "background_thread:true")
            self.assertTrue(e["LD_PRELOAD"].startswith(JEMALLOC))

    def test_native_face(self):
        e = dbb.side_env(self.BASE, "jemalloc", "pooled", NATIVE)
        self.assertEqual(e["LD_PRELOAD"], f"{JEMALLOC} /x/librockpool_native.so")
        self.assertNotIn("ROCKPOOL_OPTIONS", e)
        self.assertEqual(e["LD_LIBRARY_PATH"], "/opt/r/lib")
        self.assertEqual(dbb.side_env(self.BASE, "glibc", "stock", NATIVE)["LD_LIBRARY_PATH"],
                         "/opt/r/lib")

    def test_missing_allocator(self):
        dbb.check_allocators(["glibc"], exists=lambda p: False)
        with self.assertRaises(dbb.SetupError) as e:
            dbb.check_allocators(["glibc", "tcmalloc"], exists=lambda p: False)
        msg = str(e.exception)
        self.assertIn("libtcmalloc-minimal4", msg)
        self.assertIn(TCMALLOC, msg)
        self.assertNotIn("\n", msg)
        with self.assertRaisesRegex(dbb.SetupError, "install libjemalloc2"):
            dbb.check_allocators(["jemalloc_tuned"], exists=lambda p: p != JEMALLOC)


OPTIONS = """[Version]
  rocksdb_version=10.4.2

[DBOptions]
  max_background_jobs=2

[CFOptions "default"]
  compression=kZSTD
  compression_manager=nullptr

[TableOptions/BlockBasedTable "default"]
  block_size=4096
"""


class NativeOptionsTest(unittest.TestCase):
    def test_manager_replaces_the_line(self):
        out = dbb.with_native_manager(OPTIONS)
        self.assertIn('[CFOptions "default"]\n  compression=kZSTD\n  '
                      'compression_manager={id=rockpool;max_idle_per_key=8}\n\n'
                      '[TableOptions', out)
        self.assertNotIn("nullptr", out)

    def test_manager_added_when_absent(self):
        out = dbb.with_native_manager(OPTIONS.replace("  compression_manager=nullptr\n", ""))
        self.assertEqual(out.count("compression_manager="), 1)
        self.assertLess(out.index("compression_manager="), out.index("[TableOptions"))
        with self.assertRaises(ValueError):
            dbb.with_native_manager("[DBOptions]\n")

    def test_template_keeps_options_only(self):
        args = dbb.options_template_args(dbb.Workload("read_zlib").run_args(1))
        f = flags(args)
        self.assertEqual((f["benchmarks"], f["num"]), ("fillseq", "10"))
        for gone in ("readonly", "use_existing_db", "reads", "histogram", "threads"):
            self.assertNotIn(gone, f)
        self.assertEqual(f["cache_size"], "1048576")


class PoolIdleTest(unittest.TestCase):
    def test_reads_the_last_report_line(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("rockpool report: event=flush pid=1 mode=pool | idle=1 idle_bytes=2048 "
                    "in_use=0\nrockpool report: event=exit pid=1 mode=pool | idle=3 "
                    "idle_bytes=307200 in_use=0 discarded=0 | zstd=pooled\n")
        try:
            self.assertEqual(dbb.pool_report_kb(f.name),
                             {"idle_kb": 300.0, "peak_retained_kb": None})
        finally:
            os.unlink(f.name)

    def test_each_face_names_its_report_file(self):
        """The native face's close report (ROCKPOOL_NATIVE_STATS, as the
        v11.8.1 object writes it) carries idle_bytes too; the faces configured
        from the environment write ROCKPOOL_STATS at exit only."""
        import tempfile
        from bench import felt_session
        with tempfile.TemporaryDirectory() as tmp:
            for face, variable in ((NATIVE, "ROCKPOOL_NATIVE_STATS"), (LEGACY, "ROCKPOOL_STATS")):
                s = felt_session.Session(face, tmp, 1.0, 0.05, base_env={"ROCKPOOL_STATS": "/u"})
                env, stats = s.statistics_env("glibc", "pooled")
                self.assertEqual(env[variable], stats)
                self.assertEqual(env.get("ROCKPOOL_STATS_SECONDS"),
                                 None if face is NATIVE else "0")
                if face is NATIVE:
                    self.assertNotIn("ROCKPOOL_STATS", env)  # the user's never reaches a run
                self.assertEqual(s.statistics_env("glibc", "stock"), (s.env("glibc", "stock"), None))
                self.assertNotIn(variable, s.statistics_env("glibc", "stock")[0])
            with open(stats, "w", encoding="utf-8") as f:
                f.write("rockpool report: event=close face=native pid=21703 mode=pool | "
                        "since_last: leases=3832 created=2 | total: leases=3832 created=2 | "
                        "idle=2 idle_bytes=209720 peak_retained_bytes=419440 in_use=0 "
                        "discarded=0 | zstd_c=0/0/0/0\n")
            self.assertEqual(dbb.pool_report_kb(stats),
                             {"idle_kb": 209720 / 1024, "peak_retained_kb": 419440 / 1024})

    def test_no_file_or_no_line(self):
        self.assertIsNone(dbb.pool_report_kb("/nonexistent/rockpool_stats"))
        import tempfile
        with tempfile.NamedTemporaryFile("w", delete=False) as f:
            f.write("not a report\n")
        try:
            self.assertIsNone(dbb.pool_report_kb(f.name))
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
