#!/usr/bin/env python3
"""Every code name quoted in a C/C++ comment still exists in the code.

doc_paths_test.py checks the paths comments name; this checks the names.
A comment that quotes a name in backquotes (`countdown`, `Runtime::For`,
`LeaseCCtx()`, `z.custom_mem`, `For(...)`) claims the code has it: every
part of the name (split at ::, . and ->) must appear as a word in the code
of the tree (C/C++ with its comments taken out, and the Python, shell,
Starlark and BUILD files). A name cited as another project's ("RocksDB's
`BlockBasedTable`", the words before it as in doc_paths_test.py) is not
checked (source_text.FOREIGN_BEFORE); neither is anything in backquotes that is not a plain name
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
import source_text  # noqa: E402  (the tracked files and their comments)

C_EXTS = {".cc", ".h", ".c", ".cpp", ".hpp"}
# Files whose words count as code (C/C++ without comments, the rest whole).
WORD_EXTS = C_EXTS | {".lds", ".bzl", ".py", ".sh", ".bash"}
WORD_NAMES = {"BUILD", "BUILD.bazel", "WORKSPACE"}

# A quoted name: parts joined by ::, . or ->, optionally a call's (...).
QUOTED = re.compile(r"`((?:[A-Za-z_]\w*(?:::|\.|->))*[A-Za-z_]\w*)(?:\([^`]*\))?`")
WORD = re.compile(r"[A-Za-z_]\w*")
C_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def source_files(root):
    """The tracked files, each once (links to other files are skipped)."""
    return sorted(f for f in source_text.tracked_files(root)
                  if not os.path.islink(os.path.join(root, f)))


def code_words(root, files):
    words = set()
    for rel in files:
        name = os.path.basename(rel)
        ext = os.path.splitext(name)[1]
        if ext not in WORD_EXTS and name not in WORD_NAMES:
            continue
        text = source_text.read(root, rel)
        if ext in C_EXTS or ext == ".lds":
            text = C_COMMENT.sub(" ", text)
        words.update(WORD.findall(text))
    return words


def check(root, verbose=False):
    files = source_files(root)
    words = code_words(root, files)
    stale = []
    checked = 0
    for rel in files:
        if os.path.splitext(rel)[1] not in C_EXTS:
            continue
        for no, line in source_text.c_comments(source_text.read(root, rel)):
            for m in QUOTED.finditer(line):
                if source_text.FOREIGN_BEFORE.search(line[:m.start()]):
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
    return source_text.finish(
        "doc_symbols",
        [f"{rel}:{no}: {name} (missing: {', '.join(missing)})" for rel, no, name, missing in stale],
        f"{len(stale)} quoted name{'s' if len(stale) != 1 else ''} no longer in the code "
        f"({checked} checked in {root}); fix each comment",
        f"all {checked} quoted names exist in {root}")


if __name__ == "__main__":
    sys.exit(main())
