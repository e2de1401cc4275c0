#!/usr/bin/env python3
"""Code and docs say the reason in words: no tracked file but CHANGELOG.md
names an issue number ("issue 20", "issues 12 and 13"), and none says "this
commit" or "this branch" (a reader of the repository cannot open the
tracker, and a file outlives the commit that wrote it).

Bazel: //tests:doc_words_test. Like //tests:doc_paths_test it reads the work
tree its source file lives in (git ls-files), so it is tagged `external`.
By hand: python3 tests/doc_words_test.py [--root DIR]
"""

import argparse
import os
import re
import subprocess
import sys

# Files that may name issues: the release notes, and this test itself.
ALLOWED = {"CHANGELOG.md", "tests/doc_words_test.py"}
FORBIDDEN = re.compile(r"\bissues? \d+|\bthis commit\b|\bthis branch\b", re.IGNORECASE)


def tracked_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                          "--exclude-standard"], check=True, capture_output=True).stdout
    return [f for f in out.decode().split("\0") if f]


def findings(root):
    for rel in sorted(tracked_files(root)):
        path = os.path.join(root, rel)
        if rel in ALLOWED or not os.path.isfile(path) or os.path.islink(path):
            continue
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.readlines()
        except (UnicodeDecodeError, OSError):
            continue  # binary fixtures
        for n, line in enumerate(lines, 1):
            m = FORBIDDEN.search(line)
            if m:
                yield f"{rel}:{n}: {m.group(0)!r}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.realpath(__file__))
    parser.add_argument("--root", default=os.path.dirname(here))
    args = parser.parse_args()
    bad = list(findings(args.root))
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} place(s) name an issue, 'this commit' or 'this branch': say it in words")
        return 1
    print("doc_words: no issue numbers outside CHANGELOG.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
