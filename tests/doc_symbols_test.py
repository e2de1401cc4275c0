#!/usr/bin/env python3
"""Every code name quoted in a C/C++ comment still exists in the code.

doc_paths_test.py checks the paths comments name; this checks the names.
A comment that quotes a name in backquotes (`countdown`, `Runtime::For`,
`LeaseCCtx()`, `z.custom_mem`, `For(...)`) claims the code has it: every
part of the name (split at ::, . and ->) must appear as a word in the code
of the tree (C/C++ with its comments taken out, and the Python, shell,
Starlark and BUILD files). A name cited as another project's ("RocksDB's
`BlockBasedTable`", the words before it as in doc_paths_test.py) is not
checked; neither is anything in backquotes that is not a plain name
(`listeners={id=rockpool}`, `bazel test //...`).

It fails listing `file:line: name (missing: part)` for each name gone.

Bazel: //tests:doc_symbols_test (tagged `external` like doc_paths_test: it
reads the work tree its own source lives in).
By hand: python3 tests/doc_symbols_test.py [--root DIR] [-v]
"""

import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import doc_paths_test  # noqa: E402  (its comment reader and tree listing)

C_EXTS = {".cc", ".h", ".c", ".cpp", ".hpp"}
# Files whose words count as code (C/C++ without comments, the rest whole).
WORD_EXTS = C_EXTS | {".lds", ".bzl", ".py", ".sh", ".bash"}
WORD_NAMES = {"BUILD", "BUILD.bazel", "WORKSPACE"}

# A quoted name: parts joined by ::, . or ->, optionally a call's (...).
QUOTED = re.compile(r"`((?:[A-Za-z_]\w*(?:::|\.|->))*[A-Za-z_]\w*)(?:\([^`]*\))?`")
WORD = re.compile(r"[A-Za-z_]\w*")
C_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def source_files(tree):
    """The tracked files, each once (links to other files are skipped)."""
    return sorted(f for f in tree.files if not os.path.islink(os.path.join(tree.root, f)))


def code_words(tree, files):
    words = set()
    for rel in files:
        name = os.path.basename(rel)
        ext = os.path.splitext(name)[1]
        if ext not in WORD_EXTS and name not in WORD_NAMES:
            continue
        text = tree.read(rel)
        if ext in C_EXTS or ext == ".lds":
            text = C_COMMENT.sub(" ", text)
        words.update(WORD.findall(text))
    return words


def check(root, verbose=False):
    tree = doc_paths_test.Tree(root)
    files = source_files(tree)
    words = code_words(tree, files)
    stale = []
    checked = 0
    for rel in files:
        if os.path.splitext(rel)[1] not in C_EXTS:
            continue
        for no, line in doc_paths_test.c_comments(tree.read(rel)):
            for m in QUOTED.finditer(line):
                if doc_paths_test.FOREIGN_BEFORE.search(line[:m.start()]):
                    continue
                checked += 1
                missing = [p for p in re.split(r"::|\.|->", m.group(1)) if p not in words]
                if verbose:
                    print(f"{'STALE' if missing else 'ok   '} {rel}:{no}: {m.group(1)}")
                if missing:
                    stale.append((rel, no, m.group(1), missing))
    return stale, checked


def main():
    here = os.path.dirname(os.path.realpath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(here),
                    help="repository root (default: the tree this script is in)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every name checked")
    args = ap.parse_args()
    root = os.path.realpath(args.root)
    stale, checked = check(root, args.verbose)
    for rel, no, name, missing in stale:
        print(f"{rel}:{no}: {name} (missing: {', '.join(missing)})")
    if stale:
        print(f"doc_symbols: {len(stale)} quoted name{'s' if len(stale) != 1 else ''} no longer "
              f"in the code ({checked} checked in {root}); fix each comment")
        return 1
    print(f"doc_symbols: all {checked} quoted names exist in {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
