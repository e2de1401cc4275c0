"""The code the preloaded objects run is placed in two blocks
(rocksdb_plugin/layout_anchors.cc says why): the start-up code shares
one 64 KiB window with the read-only data, and the code that serves codecs
comes just before it, from its own 64 KiB boundary.

For each object given: its segments are 64 KiB-aligned, both anchors sit on
a 64 KiB boundary, every function startup_order.txt names that the object
defines lies in the start-up anchor's window, and so does .rodata, which
follows; every function served_order.txt names that the object defines lies
between the served anchor and the start-up anchor; and every function the
lists name exists (a stale list, after a rename, leaves code outside its
block).
A served list given as "-" means an object without a served block (the
native object, which has only its start-up block): only the start-up checks
apply.
A failure means the start-up code outgrew the window or moved out of it, or
a list is stale: shrink what runs at start-up, or regenerate the lists
(tests/rocksdb_plugin/legacy/measure/code_order.sh), and measure with
`bazel run //bench:fixed_cost`.
"""

import re
import subprocess
import sys
import unittest

WINDOW = 0x10000
ANCHOR = "_ZN8rockpool12_GLOBAL__N_113StartupAnchorEv"
SERVED_ANCHOR = "_ZN8rockpool12_GLOBAL__N_112ServedAnchorEv"
ANCHOR_SECTIONS = (".text.rockpool_startup_anchor", ".text.rockpool_served_anchor")


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
    """The functions a list places: .text.<name>, or .text.unlikely.<name> for
    a function gcc deems cold and for the part it splits off one (<name>.cold)."""
    names = []
    with open(order_file, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith(".text.") or "*" in line or line in ANCHOR_SECTIONS:
                continue
            if line.startswith(".text.unlikely."):
                names.append((line[len(".text.unlikely."):], ".cold"))
            else:
                names.append((line[len(".text."):], None))
    return names


def placed(names, defined):
    """{symbol: address} of the listed functions the object defines (the
    split-off part of a function listed by its cold section, else the
    function)."""
    found = {}
    for name, cold in names:
        for symbol in (name + cold, name) if cold else (name,):
            if symbol in defined:
                found[symbol] = defined[symbol]
                break
    return found


def unclone(name):
    """A function's name without gcc's clone suffix (.isra.0, .constprop.1)."""
    return re.sub(r"\.(isra|part|constprop)\.\d+$", "", name)


class StartupLayoutTest(unittest.TestCase):
    def check(self, obj):
        self.assertTrue(load_alignments(obj))
        for align in load_alignments(obj):
            self.assertEqual(align, WINDOW, f"{obj}: a segment aligned to {align:#x}")
        defined = functions(obj)
        self.assertTrue(ANCHOR in defined, f"{obj}: no start-up anchor ({ANCHOR})")
        anchor = defined[ANCHOR]
        self.assertEqual(anchor % WINDOW, 0, f"{obj}: anchor at {anchor:#x}")
        startup = placed(listed_functions(ORDER), defined)
        # Most of the list is in every object (the interpose object lacks
        # the RocksDB parts): a list that matches nothing is stale.
        self.assertGreater(len(startup), 40, f"{obj}: {len(startup)} listed functions defined")
        outside = [name for name, at in startup.items() if not anchor <= at < anchor + WINDOW]
        self.assertEqual(outside, [], f"{obj}: listed functions outside the anchor's window")
        if SERVED_ORDER != "-":
            self.check_served(obj, defined, anchor)
        rodata, size = section(obj, ".rodata")
        self.assertGreater(rodata, anchor)
        self.assertLessEqual(rodata + size, anchor + WINDOW,
                             f"{obj}: .rodata ends {rodata + size - anchor - WINDOW:#x} bytes "
                             "past the anchor's window")

    def check_served(self, obj, defined, anchor):
        self.assertTrue(SERVED_ANCHOR in defined, f"{obj}: no served anchor ({SERVED_ANCHOR})")
        served_anchor = defined[SERVED_ANCHOR]
        self.assertEqual(served_anchor % WINDOW, 0, f"{obj}: served anchor at {served_anchor:#x}")
        served = placed(listed_functions(SERVED_ORDER), defined)
        self.assertGreater(len(served), 100, f"{obj}: {len(served)} served functions defined")
        outside = [name for name, at in served.items() if not served_anchor <= at < anchor]
        self.assertEqual(outside, [], f"{obj}: served functions outside their block")

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
        # The tests' objects are built with invariant checks, which inline
        # differently: a clone of the list's build (name.isra.0) counts as
        # there when the function or another clone of it is.
        defined = {}
        for obj in OBJECTS:
            defined.update(functions(obj))
        bases = {unclone(symbol) for symbol in defined}
        for order in (ORDER, SERVED_ORDER) if SERVED_ORDER != "-" else (ORDER,):
            stale = [name for name, cold in listed_functions(order)
                     if not placed([(name, cold)], defined) and unclone(name) not in bases]
            self.assertEqual(stale, [], f"{order} names functions no object defines: regenerate "
                             "it (tests/rocksdb_plugin/legacy/measure/code_order.sh)")


if __name__ == "__main__":
    ASAN = "--asan" in sys.argv  # BUILD passes it under --config=asan
    ORDER, SERVED_ORDER = sys.argv[1], sys.argv[2]
    OBJECTS = [a for a in sys.argv[3:] if a != "--asan"]
    unittest.main(argv=sys.argv[:1])
