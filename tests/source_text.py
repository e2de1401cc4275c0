"""What the repository-wide checks read: the tracked files and the comments
in them (tests/doc_paths_test.py, tests/doc_symbols_test.py)."""

import os
import re
import subprocess

# A line that cites a path or a name as another project's: the words right before it.
# ("RocksDB's tools/ldb_cmd.cc", "Google Benchmark's own tools/compare.py",
# "upstream tools/..."), not rockpool's own.
FOREIGN_BEFORE = re.compile(
    r"(?:\b(?!Rockpool|This|Our|The|Its)[A-Z][\w+-]*(?:'s|’s)"
    r"|\b(?:upstream|zstd|zlib|RocksDB|rocksdb|MariaDB|MyRocks)(?:'s|’s)?)"
    r"(?: own| source| tree| repository| build)?(?: file| script| folder| binary)?[\s`(\"']*$")

def tracked_files(root):
    """Files git tracks or would track (untracked, not ignored), as
    repository-relative paths; every file below root outside git."""
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True).stdout.decode()
        files = {f for f in out.split("\0") if f}
        return {f for f in files if os.path.isfile(os.path.join(root, f))}
    except (OSError, subprocess.CalledProcessError):
        files = set()
        for d, subdirs, names in os.walk(root):
            rel = os.path.relpath(d, root)
            subdirs[:] = [s for s in subdirs
                          if s not in (".git", ".cache") and not (rel == "." and s.startswith("bazel-"))]
            for name in names:
                files.add(os.path.normpath(os.path.join(rel, name)))
        return files


def read(root, rel):
    try:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def c_comments(text):
    """(line, text) of every // and /* */ comment, skipping string literals."""
    out = []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i + 2:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            for k, part in enumerate(text[i + 2:j].split("\n")):
                out.append((line + k, part))
            line += text.count("\n", i, j)
            i = j + 2
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]{0,16})\(', text[i:])
            if not m:
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end
            line += text.count("\n", i, end)
            i = end + len(m.group(1)) + 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return out


def hash_comments(text, docstrings):
    """(line, text) of # comments (a # at line start or after blank space,
    outside quotes on that line) and, for Python/Starlark, docstrings."""
    out = []
    in_doc = None
    for no, raw in enumerate(text.split("\n"), 1):
        if docstrings:
            rest = raw
            if in_doc:
                k = rest.find(in_doc)
                if k < 0:
                    out.append((no, rest))
                    continue
                out.append((no, rest[:k]))
                rest = rest[k + 3:]
                in_doc = None
            m = re.search(r'("""|\'\'\')', rest)
            if m and "#" not in rest[:m.start()]:
                q = m.group(1)
                k = rest.find(q, m.end())
                if k >= 0:
                    out.append((no, rest[m.end():k]))
                    continue
                out.append((no, rest[m.end():]))
                in_doc = q
                continue
        quote = None
        prev = " "
        for k, c in enumerate(raw):
            if quote:
                if c == quote and prev != "\\":
                    quote = None
            elif c in "\"'":
                quote = c
            elif c == "#" and (prev in " \t;(" or k == 0):
                if k == 0 and raw.startswith("#!"):
                    break
                out.append((no, raw[k + 1:]))
                break
            prev = c
    return out


def finish(tool, stale, failed, passed):
    """Prints each stale line, then `tool: failed` or `tool: passed`; the
    exit status."""
    for line in stale:
        print(line)
    print(f"{tool}: {failed if stale else passed}")
    return 1 if stale else 0
