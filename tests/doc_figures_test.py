#!/usr/bin/env python3
"""Every figure a page quotes has one home: the results table it links.

Measured figures live in the benchmarks' results (bench/results/DATE/*.md,
with their .json). A page quotes a figure as a Markdown link whose text is
the figure and whose target is its table:

    LZ4HC fill+compact under jemalloc: [14.62 s -> 3.28 s](bench/results/2026-12-05/felt_matrix.md)

and this test fails when

  - the linked table is missing;
  - a link into bench/results with a figure in its text points at a .json
    (quote the rendered .md table);
  - no single row of the table holds every number of the link text;
  - the page's line (a table row, or else the paragraph the link sits in)
    does not name that row's labels (its cells before the first figure: the
    workload and the allocator, `sst_lz4hc | jemalloc`), or the RocksDB
    release the table's header names (`- RocksDB: 7.8.3`);
  - a line of a user's page (README.md, rocksdb_plugin/GUIDE.md,
    rocksdb_plugin/REFERENCE.md) quotes a measured change (`A -> B` with
    figures on both sides) without a link into bench/results;
  - the Debian package's description (tools/package.sh) or a man page
    (packaging/man/) quotes a figure with a unit (`2.62 s`, `+12%`, `4.5x`,
    `16 KiB`) that README.md does not quote.

Bazel: //tests:doc_figures_test (tagged `external` like doc_paths_test: it
reads the work tree its own source lives in).
By hand: python3 tests/doc_figures_test.py [--root DIR] [--self-test]
"""

import argparse
import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import source_text  # noqa: E402  (the tracked files)

RESULTS = "bench/results/"
USER_PAGES = ("README.md", "rocksdb_plugin/GUIDE.md", "rocksdb_plugin/REFERENCE.md")
MAN_DIR = "packaging/man/"
PACKAGE_SCRIPT = "tools/package.sh"

MD_LINK = re.compile(r"\[([^\]]+)\]\(([^()\s]+)\)")
NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?")
# A measured change: a figure, an arrow, a figure.
CHANGE = re.compile(r"\d[\d,.]*\s*[A-Za-z%]*\s*->\s*[-+]?\d")
UNITS = r"(?:s|ms|us|%|x|B|KiB|MiB|GiB|KB|MB|GB)"
FIGURE = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?\s?" + UNITS + r"(?![\w])")


def numbers(text):
    return [n.replace(",", "") for n in NUMBER.findall(text)]


def cells(row):
    return [c.strip() for c in row.strip().strip("|").split("|")]


def labels(row):
    """A table row's label cells: those before its first figure."""
    out = []
    for c in cells(row):
        if NUMBER.search(c):
            break
        if c and c not in ("-", "~"):
            out.append(c.strip("`*"))
    return out


def table_rocksdb(text):
    m = re.search(r"^- RocksDB: (\S+)", text, re.M)
    return m.group(1) if m else None


def named(name, line):
    """A label or release named on the page's line (`sst_lz4hc` also as "sst_lz4hc")."""
    return name.lower() in line.lower()


def check_link(page, no, line, text, target, read_file, exists):
    """Problems with one link whose target lies under bench/results/."""
    if not exists(target):
        return [f"{page}:{no}: {target}: the linked table is missing"]
    # A link that names its file ("results/2026-12-05/felt_matrix.md") quotes no figure.
    figures = [] if re.search(r"/|\.(?:md|json|png)\b", text) else numbers(text)
    if not figures:
        return []
    if not target.endswith(".md"):
        return [f"{page}:{no}: [{text}]({target}): a quoted figure links the rendered .md table, "
                f"not {os.path.basename(target)}"]
    table = read_file(target)
    rows = [r for r in table.splitlines() if r.lstrip().startswith("|")]
    holding = [r for r in rows if all(f in numbers(r) for f in figures)]
    if not holding:
        return [f"{page}:{no}: [{text}]: no row of {target} holds all of {', '.join(figures)}"]
    problems = []
    if not any(all(named(lab, line) for lab in labels(r)) for r in holding):
        wanted = " / ".join(" | ".join(labels(r)) for r in holding[:3])
        problems.append(f"{page}:{no}: [{text}]: the line does not name the row it quotes "
                        f"({wanted}) of {target}")
    release = table_rocksdb(table)
    if release and not named(release, line):
        problems.append(f"{page}:{no}: [{text}]: the line does not name RocksDB {release}, "
                        f"whose figures {target} holds")
    return problems


def context(lines, i):
    """What names a quoted figure: its table row, or else its paragraph."""
    if lines[i].lstrip().startswith("|"):
        return lines[i]
    start, end = i, i
    while start > 0 and lines[start - 1].strip() and not lines[start - 1].lstrip().startswith("|"):
        start -= 1
    while end + 1 < len(lines) and lines[end + 1].strip() and not lines[end + 1].lstrip().startswith("|"):
        end += 1
    return " ".join(lines[start:end + 1])


def resolve(page, target):
    target = target.split("#", 1)[0]
    if not target or re.match(r"[a-z][\w+.-]*:", target):
        return None
    norm = os.path.normpath(os.path.join(os.path.dirname(page), target))
    return None if norm.startswith("..") else norm


def package_description(script_text):
    m = re.search(r"^Description: .*?\n(.*?)^CONTROL$", script_text, re.M | re.S)
    return m.group(0) if m else ""


def check_tree(files, read_file):
    """Problems of a tree: `files` the tracked paths, `read_file(path)` their text."""
    exists = files.__contains__
    problems = []
    for page in sorted(f for f in files if f.endswith(".md")):
        lines = read_file(page).split("\n")
        for no, line in enumerate(lines, 1):
            linked = False
            for m in MD_LINK.finditer(line):
                target = resolve(page, m.group(2))
                if target is None or not target.startswith(RESULTS):
                    continue
                linked = True
                problems += check_link(page, no, context(lines, no - 1), m.group(1), target,
                                       read_file, exists)
            if page in USER_PAGES and not linked and CHANGE.search(line):
                problems.append(f"{page}:{no}: a measured change with no link to its table in "
                                f"{RESULTS}: {line.strip()[:120]}")
    readme = read_file("README.md") if exists("README.md") else ""
    quoted = {re.sub(r"\s", "", f) for f in FIGURE.findall(readme)}
    sources = [(PACKAGE_SCRIPT, package_description(read_file(PACKAGE_SCRIPT)))
               if exists(PACKAGE_SCRIPT) else None]
    sources += [(p, read_file(p)) for p in sorted(files) if p.startswith(MAN_DIR)]
    for name, text in filter(None, sources):
        text = text.replace("\\-", "-").replace("\\fB", "").replace("\\fP", "")
        for f in FIGURE.findall(text):
            if re.sub(r"\s", "", f) not in quoted:
                problems.append(f"{name}: quotes {f.strip()!r}, which README.md does not quote")
    return problems


def self_test():
    """The checks fail where they must (a check that cannot fail proves nothing)."""
    table = ("# matrix\n\n- RocksDB: 7.8.3\n\n| workload | allocator | wall stock | wall pooled |\n"
             "| --- | --- | --- | --- |\n| sst_lz4hc | jemalloc | 14.62 s | 3.28 s |\n")
    link = "(bench/results/d/t.md)"
    cases = {
        "ok": ("sst_lz4hc, jemalloc, RocksDB 7.8.3: [14.62 s -> 3.28 s]" + link, 0),
        "figure not in the table": ("sst_lz4hc, jemalloc, 7.8.3: [14.62 s -> 2.03 s]" + link, 1),
        "row not named": ("jemalloc, 7.8.3: [14.62 s -> 3.28 s]" + link, 1),
        "release not named": ("sst_lz4hc, jemalloc: [14.62 s -> 3.28 s]" + link, 1),
        "table missing": ("sst_lz4hc, jemalloc, 7.8.3: [14.62 s](bench/results/d/gone.md)", 1),
        "json": ("sst_lz4hc, jemalloc, 7.8.3: [14.62 s](bench/results/d/t.json)", 1),
        "unlinked change": ("LZ4HC under jemalloc: 10.97 -> 2.03 s", 1),
    }
    failures = []
    for name, (readme, want) in cases.items():
        files = {"README.md": readme, "bench/results/d/t.md": table, "bench/results/d/t.json": "{}"}
        got = len(check_tree(set(files), files.__getitem__))
        if (got > 0) != (want > 0):
            failures.append(f"self-test '{name}': {got} problems, wanted {'some' if want else 'none'}")
    files = {"README.md": "x [14.62 s](bench/results/d/t.md) sst_lz4hc jemalloc 7.8.3",
             "bench/results/d/t.md": table,
             "packaging/man/x.1": ".TH X\nfaster by 4.5x\n"}
    if not any("4.5x" in p for p in check_tree(set(files), files.__getitem__)):
        failures.append("self-test 'man page figure not in README': not reported")
    return failures


def main():
    here = os.path.dirname(os.path.realpath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(here))
    args = ap.parse_args()
    root = os.path.realpath(args.root)
    problems = self_test()
    files = source_text.tracked_files(root)
    problems += check_tree(files, lambda rel: source_text.read(root, rel))
    return source_text.finish(
        "doc_figures", problems,
        f"{len(problems)} quoted figure(s) without their home: quote a cell of the table you "
        f"link, name its row and RocksDB on the line, or drop the figure",
        f"every quoted figure is in the table it links ({len(files)} files in {root})")


if __name__ == "__main__":
    tempfile.tempdir = None
    sys.exit(main())
