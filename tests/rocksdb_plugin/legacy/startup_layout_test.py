"""The start-up code of the preloaded objects shares one 64 KiB window with
the read-only data (rocksdb_plugin/legacy/startup_anchor.cc says why).

For each object given: its segments are 64 KiB-aligned, the anchor sits on a
64 KiB boundary, every function startup_order.txt names that the object
defines lies in the anchor's window, and so does .rodata, which follows;
and every function the list names exists (a stale list, after a rename,
leaves start-up code outside the window).
A failure means the start-up code outgrew the window or moved out of it:
shrink what runs at start-up, or regenerate the list
(tests/rocksdb_plugin/legacy/measure/startup_order.sh), and measure with
`bazel run //bench:fixed_cost`.
"""

import subprocess
import sys
import unittest

WINDOW = 0x10000
ANCHOR = "_ZN8rockpool6legacy12_GLOBAL__N_113StartupAnchorEv"


def run(*argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def load_alignments(obj):
    return [int(line.split()[-1], 16) for line in run("readelf", "-lW", obj).splitlines()
            if line.split()[:1] == ["LOAD"]]


def section(obj, name):
    """(address, size) of a section."""
    for line in run("readelf", "-SW", obj).splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 5 and fields[1] == name:
            return int(fields[3], 16), int(fields[5], 16)
    raise AssertionError(f"{obj}: no {name} section")


def functions(obj):
    """{name: address} of the functions the object defines."""
    found = {}
    for line in run("nm", obj).splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTwW":
            found[fields[2]] = int(fields[0], 16)
    return found


def listed_functions(order_file):
    with open(order_file, encoding="utf-8") as f:
        return [line.strip()[len(".text."):] for line in f
                if line.startswith(".text.") and "*" not in line
                and line.strip() != ".text.rockpool_startup_anchor"]


class StartupLayoutTest(unittest.TestCase):
    def check(self, obj):
        self.assertTrue(load_alignments(obj))
        for align in load_alignments(obj):
            self.assertEqual(align, WINDOW, f"{obj}: a segment aligned to {align:#x}")
        defined = functions(obj)
        self.assertTrue(ANCHOR in defined, f"{obj}: no start-up anchor ({ANCHOR})")
        anchor = defined[ANCHOR]
        self.assertEqual(anchor % WINDOW, 0, f"{obj}: anchor at {anchor:#x}")
        placed = [name for name in listed_functions(ORDER) if name in defined]
        # Most of the list is in every object (the interpose object lacks
        # the RocksDB parts): a list that matches nothing is stale.
        self.assertGreater(len(placed), 40, f"{obj}: {len(placed)} listed functions defined")
        outside = [name for name in placed if not anchor <= defined[name] < anchor + WINDOW]
        self.assertEqual(outside, [], f"{obj}: listed functions outside the anchor's window")
        rodata, size = section(obj, ".rodata")
        self.assertGreater(rodata, anchor)
        self.assertLessEqual(rodata + size, anchor + WINDOW,
                             f"{obj}: .rodata ends {rodata + size - anchor - WINDOW:#x} bytes "
                             "past the anchor's window")

    def test_objects(self):
        if ASAN:
            self.skipTest("ASan-built objects are several times larger and never preloaded")
        self.assertTrue(OBJECTS)
        for obj in OBJECTS:
            with self.subTest(obj=obj):
                self.check(obj)

    def test_list_names_only_defined_functions(self):
        # A function renamed or re-typed (its mangled name changes) drops out
        # of the list silently and lands outside the window: the list must be
        # regenerated whenever a name in it no longer exists.
        if ASAN:
            self.skipTest("ASan builds inline and clone differently")
        defined = set()
        for obj in OBJECTS:
            defined.update(functions(obj))
        stale = [name for name in listed_functions(ORDER) if name not in defined]
        self.assertEqual(stale, [], "startup_order.txt names functions no object defines: "
                         "regenerate it (tests/rocksdb_plugin/legacy/measure/startup_order.sh)")


if __name__ == "__main__":
    ASAN = "--asan" in sys.argv  # BUILD passes it under --config=asan
    ORDER, OBJECTS = sys.argv[1], [a for a in sys.argv[2:] if a != "--asan"]
    unittest.main(argv=sys.argv[:1])
