#!/usr/bin/env python3
"""The test gate has one spelling: `#if ROCKPOOL_DEBUG_CHECKS_ON`.

The compiler flag ROCKPOOL_DEBUG_CHECKS (.bazelrc's test, asan and tsan
configs) is read in one place, compression/debug_check.h, which turns it
into ROCKPOOL_DEBUG_CHECKS_ON (1 or 0). Every other C/C++ file tests that
macro, and includes debug_check.h to do so: `#if` of a macro nobody defined
is silently false, so a file that forgot the include would leave its test
hooks out of test builds without a word.

It fails listing `file:line: what` for each line that breaks the rule.

Bazel: //tests:debug_gate_test (tagged `external` like doc_paths_test: it
reads the work tree its own source lives in).
By hand: python3 tests/debug_gate_test.py [--root DIR]
"""

import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import source_text  # noqa: E402  (the tracked files)

GATE_HEADER = "compression/debug_check.h"
C_EXTS = (".cc", ".h", ".c")
# A preprocessor line naming either macro.
DIRECTIVE = re.compile(r"^\s*#\s*(\w+)\b(.*ROCKPOOL_DEBUG_CHECKS\w*.*)$")
INCLUDES_GATE = re.compile(r'^\s*#\s*include\s+"' + re.escape(GATE_HEADER) + '"', re.M)


def problems(root):
    out = []
    for rel in sorted(source_text.tracked_files(root)):
        if not rel.endswith(C_EXTS) or rel.startswith("third_party/") or rel == GATE_HEADER:
            continue
        text = source_text.read(root, rel)
        gated = False
        for n, line in enumerate(text.splitlines(), 1):
            m = DIRECTIVE.match(line)
            if not m:
                continue
            if m.group(1) != "if" or not re.fullmatch(r"\s*ROCKPOOL_DEBUG_CHECKS_ON\s*(//.*)?",
                                                      m.group(2)):
                out.append(f"{rel}:{n}: spell the test gate `#if ROCKPOOL_DEBUG_CHECKS_ON`")
            gated = True
        if gated and not INCLUDES_GATE.search(text):
            out.append(f"{rel}: tests ROCKPOOL_DEBUG_CHECKS_ON without including {GATE_HEADER}")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.realpath(__file__))
    parser.add_argument("--root", default=os.path.dirname(here))
    args = parser.parse_args()
    found = problems(args.root)
    for p in found:
        print(p)
    print(f"debug_gate: {len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
