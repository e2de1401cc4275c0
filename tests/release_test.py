#!/usr/bin/env python3
"""A release says what it ships: its version and its flags agree everywhere.

- The version in rockpool_version.h (the one place it is written) is what
  `rockpool --version` and `sst_replay --version` print, the newest release
  heading of CHANGELOG.md, the first entry of packaging/changelog (the
  Debian changelog) and the .TH line of both man pages.
- Each man page (packaging/man/) names exactly the flags its binary's
  `--help` lists: a flag in one and not the other fails. Where the man page
  gives a flag's values (`--codec=zstd|zlib|lz4|lz4hc`) and `--help` lists
  them too (`(zstd, zlib, lz4 or lz4hc)`, or `--object=a|b|c`), the two sets
  are equal.

Bazel: //tests:release_test, with the two binaries built as its data (their
paths are its arguments). It reads the text files from the work tree its
source lives in, like //tests:doc_paths_test, so it is tagged `external`.
By hand: python3 tests/release_test.py ROCKPOOL_BINARY SST_REPLAY_BINARY
"""

import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
BINARIES = {}  # "rockpool" / "sst_replay" -> path, from the command line

# Abseil's own usage flags: sst_replay's --help does not list them.
ABSEIL_USAGE_FLAGS = {"help", "helpfull", "helpshort", "helppackage", "version", "only_check_args",
                      "helpon", "helpmatch"}


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def run(name, *args):
    out = subprocess.run([BINARIES[name], *args], capture_output=True, text=True, timeout=60)
    return out.returncode, out.stdout + out.stderr


def header_version():
    m = re.search(r'^#define ROCKPOOL_VERSION "([^"]+)"$', read("rockpool_version.h"), re.M)
    assert m, "no ROCKPOOL_VERSION in rockpool_version.h"
    return m.group(1)


def man_flags(page):
    """{flag: set of values or None} named in a man page (\\-\\-name[=a|b])."""
    text = read(page).replace("\\-", "-").replace("\\fB", "").replace("\\fI", "").replace("\\fP", "")
    text = text.replace("\\fR", "")
    # EXAMPLES show other programs' flags (db_bench's).
    text = re.sub(r"^\.SH EXAMPLES\n.*?(?=^\.SH |\Z)", "", text, flags=re.M | re.S)
    # .BI alternates bold and italic words: "--codec= zstd|zlib" is one flag.
    text = re.sub(r"(--[a-z0-9_]+=) ", r"\1", text)
    flags = {}
    # (Not another program's hyphenated flag: mariadbd-safe's --malloc-lib.)
    for m in re.finditer(r"--(no)?([a-z][a-z0-9_]*)(?![-a-z0-9_])(?:=([\w|./]+))?", text):
        name = m.group(2)
        values = None
        if m.group(3) and "|" in m.group(3):
            values = {v for v in m.group(3).split("|") if v and v.lower() == v and "/" not in v}
        if name not in flags or flags[name] is None:
            flags[name] = values
    return flags


def value_list(text):
    """The values a help text lists: `a|b|c`, or `(a, b, c or d)`."""
    m = re.search(r"=((?:[a-z0-9]+\|)+[a-z0-9]+)", text)
    if m:
        return set(m.group(1).split("|"))
    m = re.search(r"\(([a-z0-9]+(?:, [a-z0-9]+)* or [a-z0-9]+)\)", text)
    if m:
        return set(re.split(r", | or ", m.group(1)))
    return None


def sst_replay_help():
    """{flag: its help text} from sst_replay --help (Abseil's format)."""
    code, out = run("sst_replay", "--help")
    assert code == 0, out
    flags = {}
    entries = re.split(r"^    --", out, flags=re.M)[1:]
    for entry in entries:
        m = re.match(r"([a-z0-9_]+) \((.*)\); default: ", " ".join(entry.split()))
        if m:
            flags[m.group(1)] = m.group(2)
    assert len(flags) >= 10, f"sst_replay --help lists {len(flags)} flags:\n{out}"
    return flags


def rockpool_help():
    """{flag: the rest of its line} from rockpool --help."""
    code, out = run("rockpool", "--help")
    assert code == 0, out
    flags = {}
    for line in out.splitlines():
        for m in re.finditer(r"--([a-z][a-z0-9_]*)", line):
            flags.setdefault(m.group(1), line[m.start():])
    return flags


class VersionTest(unittest.TestCase):
    def setUp(self):
        self.version = header_version()

    def test_binaries_print_the_header_version(self):
        for name in ("rockpool", "sst_replay"):
            code, out = run(name, "--version")
            self.assertEqual(code, 0, out)
            self.assertEqual(out.strip().splitlines()[0], f"{name} {self.version}")

    def test_changelog_newest_release_is_the_version(self):
        releases = re.findall(r"^## (\d+\.\d+\.\d+) \(\d{4}-\d\d-\d\d\)$", read("CHANGELOG.md"), re.M)
        self.assertTrue(releases, "CHANGELOG.md has no release heading '## X.Y.Z (YYYY-MM-DD)'")
        self.assertEqual(releases[0], self.version,
                         "CHANGELOG.md's newest release is not rockpool_version.h's")

    def test_debian_changelog_first_entry_is_the_version(self):
        first = read("packaging/changelog").splitlines()[0]
        self.assertRegex(first, r"^rockpool \(([^)]+)\) ")
        self.assertEqual(re.match(r"^rockpool \(([^)]+)\)", first).group(1), self.version)

    def test_man_pages_name_the_version(self):
        for page in ("packaging/man/rockpool.1", "packaging/man/sst_replay.1"):
            th = next(line for line in read(page).splitlines() if line.startswith(".TH "))
            self.assertIn(f'"rockpool {self.version}"', th, page)

    def test_package_reads_the_header(self):
        self.assertIn("rockpool_version.h", read("tools/package.sh"))


class ManFlagsTest(unittest.TestCase):
    def check(self, page, help_flags, ignore=()):
        man = man_flags(page)
        man_names = set(man) - ABSEIL_USAGE_FLAGS - set(ignore)
        help_names = set(help_flags) - ABSEIL_USAGE_FLAGS - set(ignore)
        self.assertEqual(sorted(man_names - help_names), [],
                         f"{page} names flags --help does not list")
        self.assertEqual(sorted(help_names - man_names), [],
                         f"--help lists flags {page} does not name")
        for name, values in man.items():
            if values is None or name not in help_flags:
                continue
            listed = value_list(help_flags[name])
            if listed is not None:
                self.assertEqual(values, listed,
                                 f"{page}: --{name} values differ from --help's")

    def test_sst_replay_man_page_matches_help(self):
        # "--name", "--bool", "--nobool": the man page's lesson in Abseil's syntax.
        self.check("packaging/man/sst_replay.1", sst_replay_help(), ignore=("name", "bool"))

    def test_rockpool_man_page_matches_help(self):
        self.check("packaging/man/rockpool.1", rockpool_help())

    def test_value_lists_are_compared(self):
        # The check above must see the lists it compares.
        self.assertEqual(value_list("recompress with this codec (zstd, zlib, lz4 or lz4hc) instead"),
                         {"zstd", "zlib", "lz4", "lz4hc"})
        self.assertEqual(man_flags("packaging/man/sst_replay.1")["codec"],
                         {"zstd", "zlib", "lz4", "lz4hc"})
        self.assertEqual(value_list(rockpool_help()["object"]), {"preload", "interpose", "native"})


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: release_test.py ROCKPOOL_BINARY SST_REPLAY_BINARY")
    BINARIES["rockpool"] = os.path.abspath(sys.argv[1])
    BINARIES["sst_replay"] = os.path.abspath(sys.argv[2])
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:])
