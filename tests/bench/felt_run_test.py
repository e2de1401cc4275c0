"""bench/felt_run.py with real children: rusage from os.wait4 and RSS
sampled from /proc, the child's environment exactly as given, and a peak
RSS that is the child's own (not this Python process's: a child exec'd
straight from Python would inherit its high-water mark)."""

import os
import sys
import tempfile
import unittest

from bench import felt_run

MIB = 1024  # KiB

# Allocates 64 MiB, touches every page, holds it long enough for the 50 ms
# sampler to see it, and exits without freeing it (os._exit: an ordinary
# interpreter exit frees the buffer first, and RSS at exit would rightly
# show that).
CHILD = ("import os, time\n"
         "b = bytearray(64 * 2**20)\n"
         "for i in range(0, len(b), 4096): b[i] = 1\n"
         "time.sleep(0.5)\n"
         "os._exit(0)\n")


class RunTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.tmp.name, "out")
        self.err = os.path.join(self.tmp.name, "err")

    def tearDown(self):
        self.tmp.cleanup()

    def test_python_child_allocating(self):
        r = felt_run.run([sys.executable, "-c", CHILD], dict(os.environ), self.out, self.err)
        self.assertEqual(r["exit_code"], 0)
        self.assertGreaterEqual(r["maxrss_kb"], 64 * MIB)
        self.assertLess(r["maxrss_kb"], 1024 * MIB)
        self.assertGreaterEqual(r["minflt"], 64 * MIB // 4 * 9 // 10)  # ~one fault per page
        self.assertGreater(r["cpu_s"], 0)
        self.assertAlmostEqual(r["cpu_s"], r["user_s"] + r["sys_s"])
        self.assertGreaterEqual(r["wall_s"], 0.5)
        self.assertGreaterEqual(r["rss_samples"], 1)
        self.assertGreaterEqual(r["rss_exit_kb"], 64 * MIB)
        self.assertLessEqual(r["rss_exit_kb"], r["maxrss_kb"] + 2 * MIB)

    def test_shell_pipeline(self):
        r = felt_run.run(["/bin/sh", "-c", "head -c 20000000 /dev/zero | cat >/dev/null; exit 3"],
                         {"PATH": "/usr/bin:/bin"}, self.out, self.err)
        self.assertEqual(r["exit_code"], 3)
        self.assertGreater(r["maxrss_kb"], 0)
        self.assertLess(r["maxrss_kb"], 64 * MIB)
        self.assertGreater(r["minflt"], 0)

    def test_peak_is_the_childs_own(self):
        ballast = bytearray(128 * 2**20)  # this process now holds 128 MiB more
        for i in range(0, len(ballast), 4096):
            ballast[i] = 1
        r = felt_run.run(["/bin/true"], {}, self.out, self.err)
        self.assertEqual(r["exit_code"], 0)
        self.assertLess(r["maxrss_kb"], 16 * MIB)
        del ballast

    def test_watched_objects_resident_pages(self):
        # A child maps 1 MiB of a file and touches every page: the sampler
        # follows that file's resident pages, and no other mapping's.
        mapped = os.path.join(self.tmp.name, "object.so")
        with open(mapped, "wb") as f:
            f.write(b"\1" * 2**20)
        child = ("import mmap, os, sys, time\n"
                 "f = open(sys.argv[1], 'rb')\n"
                 "m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)\n"
                 "s = sum(m[i] for i in range(0, len(m), 4096))\n"
                 "time.sleep(0.5)\n"
                 "os._exit(0)\n")
        r = felt_run.run([sys.executable, "-c", child, mapped], dict(os.environ), self.out,
                         self.err, watch_object=mapped)
        self.assertEqual(r["exit_code"], 0)
        self.assertEqual(r["object_rss_kb"], MIB)
        r = felt_run.run([sys.executable, "-c", child, mapped], dict(os.environ), self.out,
                         self.err, watch_object=mapped + ".other")
        self.assertEqual(r["object_rss_kb"], 0)  # never mapped
        self.assertNotIn("object_rss_kb", felt_run.run(["/bin/true"], {}, self.out, self.err))

    def test_environment_exactly_as_given(self):
        r = felt_run.run(["/usr/bin/env"], {"A": "1", "B": "x y=z"}, self.out, self.err)
        self.assertEqual(r["exit_code"], 0)
        with open(self.out, encoding="utf-8") as f:
            self.assertEqual(f.read(), "A=1\nB=x y=z\n")

    def test_children_quicker_than_the_launcher(self):
        # A child that exits before the launching sh does must still be
        # ours to reap: without the gate, sh's SIGCHLD handler sometimes
        # reaped it first and os.waitid failed with ECHILD.
        for _ in range(300):
            r = felt_run.run(["/usr/bin/env"], {"A": "1"}, self.out, self.err)
            self.assertEqual(r["exit_code"], 0)

    def test_kept_samples(self):
        child = felt_run.Child([sys.executable, "-c", CHILD], dict(os.environ), self.out,
                               self.err, interval_s=0.05, keep_samples=True).start()
        r = child.wait()
        self.assertEqual(r["samples"][-1][1], r["rss_exit_kb"])
        times = [t for t, _ in r["samples"]]
        self.assertEqual(times, sorted(times))
        child.kill()  # already reaped: nothing happens


if __name__ == "__main__":
    unittest.main()
