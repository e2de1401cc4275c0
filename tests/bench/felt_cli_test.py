"""bench/felt_cli.py: defaults (--quick, --soak), and bad input as one line
with exit status 2."""

import contextlib
import io
import unittest

from bench import felt_cli as cli
from bench import felt_dbbench as dbb


class CliTest(unittest.TestCase):
    def test_defaults(self):
        a = cli.parse([])
        self.assertEqual((a.pairs, a.scale, a.sample_ms), (5, 1.0, 50))
        self.assertEqual(len(a.workloads), 17)
        self.assertEqual(a.allocators, ["glibc", "jemalloc", "jemalloc_tuned", "tcmalloc"])
        self.assertIsNone(a.soak)
        # jemalloc_bg is known, and only run when named
        self.assertIn("jemalloc_bg", cli.parse(["--allocators=jemalloc_bg"]).allocators)

    def test_quick(self):
        a = cli.parse(["--quick"])
        self.assertEqual((a.pairs, a.scale), (1, cli.QUICK_SCALE))
        self.assertEqual([w.name for w in a.workloads], ["sst_zstd", "read_zlib"])
        self.assertEqual(a.allocators, ["glibc", "jemalloc"])
        b = cli.parse(["--quick", "--pairs=3", "--allocators=tcmalloc", "--workloads=blob"])
        self.assertEqual((b.pairs, b.allocators, len(b.workloads)), (3, ["tcmalloc"], 4))

    def test_soak(self):
        self.assertEqual(cli.parse(["--soak"]).soak, 600)
        self.assertEqual(cli.parse(["--soak", "--quick"]).soak, 20)
        a = cli.parse(["--soak=90"])
        self.assertEqual((a.soak, a.allocators, a.workloads), (90, ["glibc", "jemalloc_bg", "jemalloc"], []))
        self.assertEqual(a.soak_runs, 1)
        self.assertEqual(cli.parse(["--soak", "--soak_runs=3"]).soak_runs, 3)

    def test_paths_relative_to_where_bazel_run_was_typed(self):
        a = cli.parse(["--md=tmp/x.md", "--json=/tmp/x.json", "--preload=x.so"], cwd="/")
        self.assertEqual((a.md, a.json, a.preload, a.db_bench),
                         ("/tmp/x.md", "/tmp/x.json", "/x.so", "/usr/bin/db_bench"))
        self.assertEqual(cli.parse(["--md=x.md"], cwd="/tmp").md, "/tmp/x.md")

    def test_bad_input(self):
        for argv, message in (
                (["--workloads=sst_snappy"], "unknown workload 'sst_snappy'"),
                (["--allocators=mimalloc"], "unknown allocator 'mimalloc'"),
                (["--pairs=0"], "--pairs=0: expected 1 to 1000"),
                (["--pairs=two"], "--pairs=two: not a number"),
                (["--scale=-1"], "--scale=-1: expected"),
                (["--soak=0"], "--soak=0: expected"),
                (["--soak", "--soak_runs=0"], "--soak_runs=0: expected"),
                (["--soak", "--soak_runs=x"], "--soak_runs=x: not a number"),
                (["--sample_ms=5"], "--sample_ms=5: expected 10 to 1000"),
                (["--upstream_object=both"], "--object=both"),
                (["--object=native"], "--object=native: expected preload or interpose "
                                      "without --upstream"),
                (["--allocators=x=/nonexistent/libx.so"], "/nonexistent/libx.so: no such file"),
                (["--allocators=jemalloc=/bin/true"], "jemalloc already names"),
                (["--md=/nonexistent/dir/x.md"], "no such directory"),
                (["--tmpdir=/nonexistent/dir"], "--tmpdir=/nonexistent/dir: no such directory"),
                (["--frobnicate"], "unrecognized arguments"),
        ):
            with self.subTest(argv=argv):
                with self.assertRaises(cli.UsageError) as e:
                    cli.parse(argv)
                self.assertIn(message, str(e.exception))
                self.assertNotIn("\n", str(e.exception))

    def test_objects_and_allocators_by_path(self):
        a = cli.parse(["--object=interpose", "--allocators=glibc,mine=/bin/true,/bin/sh"])
        self.assertEqual(a.object, "interpose")
        self.assertEqual(a.allocators, ["glibc", "mine", "/bin/sh"])
        self.assertEqual(dbb.ALLOCATORS["mine"].so, "/bin/true")
        self.assertEqual(cli.parse([]).object, "preload")
        self.assertEqual(cli.parse(["--upstream=/opt/x"]).object, "interpose")
        self.assertEqual(cli.parse(["--upstream=/opt/x", "--upstream_object=native"]).object,
                         "native")

    def test_fail_is_one_line_and_exit_2(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
            cli.fail("allocator tcmalloc: ... install libtcmalloc-minimal4")
        self.assertEqual(e.exception.code, 2)
        self.assertEqual(err.getvalue(), "felt_cost: allocator tcmalloc: ... install "
                                         "libtcmalloc-minimal4\n")


if __name__ == "__main__":
    unittest.main()
