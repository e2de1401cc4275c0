#!/usr/bin/env python3
"""Every repository path named in a comment or a manual still exists.

Scans the comments of the source files (C/C++, linker scripts, Starlark,
BUILD files, shell, Python, make and CMake files, .bazelrc) and the whole
text of every Markdown manual for

  - paths that start with one of the repository's top-level folders
    (TOP_DIRS below), also behind ../ (resolved from the file's folder);
  - relative paths whose first component is a folder next to the file or
    above it (`legacy/runtime.cc` in rocksdb_plugin/);
  - in Markdown tables, a bare file name after a path in the same cell
    (its sibling: "`compression/zstd_contexts.*`, `zlib_contexts.*`");
  - Bazel labels of this repository (//pkg, //pkg:target, //pkg/...);
  - Markdown link targets (relative to the manual's folder).

and fails listing each one that does not exist, one per line, as
`file:line: path`. Placeholders and patterns match what they stand for:
`<name>` and `$var` are one path component, `*` and `?` are globs,
`{a,b}` alternatives are each checked, a trailing `/...` is a folder. A
path that names a build output (`<package>/<target>`) exists when the
target does. Paths of other trees that collide with ours (RocksDB's tools/,
MariaDB's, ...) are skipped when the line cites them as another project's
(`RocksDB's tools/...`, `upstream ...`), or listed in doc_paths_allowlist.txt.

Bazel: //tests:doc_paths_test. It reads the work tree the test's own source
file lives in (a glob cannot reach into the other packages), so the target is
tagged `external`: never cached, it always sees the current tree.
By hand: python3 tests/doc_paths_test.py [--root DIR] [-v]
"""

import argparse
import fnmatch
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import source_text  # noqa: E402  (the tracked files and their comments)

TOP_DIRS = ("compression", "rocksdb_plugin", "tools", "tests", "bench",
            "third_party", ".ci", "packaging")

HASH_COMMENT_NAMES = {"BUILD", "BUILD.bazel", "WORKSPACE", ".bazelrc",
                      "CMakeLists.txt", "Makefile"}
HASH_COMMENT_EXTS = {".sh", ".py", ".bzl", ".mk", ".bash"}
C_COMMENT_EXTS = {".cc", ".h", ".c", ".cpp", ".hpp", ".lds"}
DOCSTRING_EXTS = {".py", ".bzl"}

_TOP = "|".join(re.escape(d) for d in TOP_DIRS)
# A path: not glued to something before it (another path, a variable, a
# word, a URL), optional ../ steps, one of our top-level folders, then path
# characters (braces and placeholders are taken whole, below).
PATH_START = re.compile(r"(?<![\w.\-/$@~:%=+])((?:\.\./)*)(" + _TOP + r")/")
# A relative path (first component a folder name, at least one slash).
REL_START = re.compile(r"(?<![\w.\-/$@~:%=+<{*])(?!(?:" + _TOP + r"|\.\.)/)([\w][\w.\-]*)/(?=[\w.*{<])")
LABEL_START = re.compile(r"(?<![\w.\-/$@~:%])//(?=[\w.:])")
MD_LINK = re.compile(r"\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
PATH_CHARS = re.compile(r"[\w.\-/*?+]")


def take_path(text, i):
    """The path-like run of text starting at i (braces, <placeholders>, $vars)."""
    out = []
    n = len(text)
    while i < n:
        c = text[i]
        if PATH_CHARS.match(c):
            out.append(c)
            i += 1
        elif c == "{":
            j = text.find("}", i)
            if j < 0 or not re.fullmatch(r"\{[\w.\-*,/]*\}", text[i:j + 1]):
                break
            out.append(text[i:j + 1])
            i = j + 1
        elif c == "<":
            m = re.match(r"<[\w.\-]+>", text[i:])
            if not m:
                break
            out.append(m.group(0))
            i += len(m.group(0))
        elif c == "$":
            m = re.match(r"\$\{?\w+\}?|\$\(\w+\)", text[i:])
            if not m:
                break
            out.append(m.group(0))
            i += len(m.group(0))
        else:
            break
    return "".join(out)


def clean(path):
    """Drops sentence punctuation from the end (keeps a trailing /...)."""
    if path.endswith("/..."):
        return path
    path = path.rstrip(".,;-+?")
    return path


def expand_braces(path):
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    out = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(path[:m.start()] + alt + path[m.end():]))
    return out


def kind_of(rel, root):
    name = os.path.basename(rel)
    ext = os.path.splitext(name)[1]
    if ext == ".md":
        return "md"
    if ext in C_COMMENT_EXTS:
        return "c"
    if name in HASH_COMMENT_NAMES or ext in HASH_COMMENT_EXTS:
        return "hash"
    if ext == "":
        try:
            with open(os.path.join(root, rel), "rb") as f:
                first = f.readline(200)
        except OSError:
            return None
        if first.startswith(b"#!") and re.search(rb"\b(ba)?sh\b|python", first):
            return "hash"
    return None


# ---------------------------------------------------------------- the tree
class Tree:
    def __init__(self, root):
        self.root = root
        self.files = source_text.tracked_files(root)
        self.dirs = set()
        for f in self.files:
            d = os.path.dirname(f)
            while d and d not in self.dirs:
                self.dirs.add(d)
                d = os.path.dirname(d)
        self.all = self.files | self.dirs
        self.packages = {os.path.dirname(f) for f in self.files
                         if os.path.basename(f) in ("BUILD", "BUILD.bazel")}
        self._targets = {}

    def exists(self, path):
        """path: relative, normalized, may hold globs (a trailing / = folder)."""
        want_dir = path.endswith("/")
        path = path.rstrip("/")
        if not path:
            return True
        if not re.search(r"[*?\[]", path):
            if path in self.dirs or (not want_dir and path in self.files):
                return True
            return not want_dir and self.is_output(path)
        candidates = self.dirs if want_dir else self.all
        depth = path.count("/")
        for c in candidates:
            if c.count("/") == depth and fnmatch.fnmatchcase(c, path):
                return True
        return False

    def path_exists(self, path):
        """A path as written: <placeholder>, $var and UPPERCASE components
        stand for one component, {a,b} for each alternative, /... for a folder."""
        if path.endswith("/..."):
            path = path[:-4].rstrip("/") + "/"
        parts = []
        for part in path.split("/"):
            part = re.sub(r"<[\w.\-]+>|\$\{?\w+\}?|\$\(\w+\)", "*", part)
            if re.fullmatch(r"[A-Z][A-Z0-9_]*", part):
                part = "*"
            parts.append(part)
        return all(self.exists(os.path.normpath(a) + ("/" if a.endswith("/") else ""))
                   for a in expand_braces("/".join(parts)))

    def is_output(self, path):
        """<package>/<target>: a build output named after its target."""
        pkg, name = os.path.split(path)
        while pkg:
            if pkg in self.packages:
                rel = os.path.relpath(path, pkg)
                return "/" not in rel and rel in self.targets(pkg)
            pkg = os.path.dirname(pkg)
        return False

    def read(self, rel):
        return source_text.read(self.root, rel)

    def targets(self, pkg):
        """Names a package defines: name literals of its BUILD file and of the
        .bzl files it loads, plus macro suffixes (name + "_fuzzer")."""
        if pkg in self._targets:
            return self._targets[pkg]
        build = next((os.path.join(pkg, b) for b in ("BUILD.bazel", "BUILD")
                      if os.path.join(pkg, b) in self.files), None)
        text = self.read(build) if build else ""
        # Every string literal: names also come from lists and loops.
        names = set(re.findall(r"\"([\w.+\-]+)\"", text))
        suffixes = set()
        for m in re.finditer(r"load\(\s*\"(?:@rockpool)?(//[^\"]*|:[^\"]*)\"", text):
            label = m.group(1)
            bzl = (label[2:].replace(":", "/") if label.startswith("//")
                   else os.path.join(pkg, label[1:]))
            bzl = bzl.lstrip("/")
            if bzl in self.files:
                body = self.read(bzl)
                names |= set(re.findall(r"\bname\s*=\s*\"([^\"]+)\"", body))
                suffixes |= set(re.findall(r"\bname\s*=\s*name\s*\+\s*\"([^\"]+)\"", body))
        names |= {n + s for n in list(names) for s in suffixes}
        self._targets[pkg] = names
        return names

    def label_exists(self, label):
        """//pkg, //pkg:name, //pkg/..., //:version (the root package)."""
        body = label[2:]
        if body.endswith("/..."):
            return body[:-4] in self.dirs
        if body == "...":
            return True
        pkg, _, name = body.partition(":")
        pkg = pkg.rstrip("/")
        if pkg and pkg not in self.packages:
            return False
        if not name:
            return True
        if name in ("__pkg__", "__subpackages__", "all", "*", "all-targets"):
            return True
        if name in self.targets(pkg):
            return True
        return os.path.normpath(os.path.join(pkg, name)) in self.files or os.path.normpath(os.path.join(pkg, name)) in self.dirs


# ---------------------------------------------------------------- the scan
def load_allowlist(path):
    patterns = []
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            for raw in f:
                line = raw.split("#", 1)[0].strip()
                if line:
                    patterns.append(line)
    return patterns


def allowed(path, patterns):
    return any(fnmatch.fnmatchcase(path, p) or fnmatch.fnmatchcase(path.rstrip("/"), p.rstrip("/"))
               for p in patterns)


def references(rel, kind, text):
    """(line, path-as-written, kind, text before it) of one file."""
    if kind == "md":
        lines = list(enumerate(text.split("\n"), 1))
    elif kind == "c":
        lines = source_text.c_comments(text)
    else:
        lines = source_text.hash_comments(text, os.path.splitext(rel)[1] in DOCSTRING_EXTS)
    for no, line in lines:
        for m in PATH_START.finditer(line):
            yield no, clean(take_path(line, m.start())), "path", line[:m.start()]
        for m in REL_START.finditer(line):
            yield no, clean(take_path(line, m.start())), "rel", line[:m.start()]
        for m in LABEL_START.finditer(line):
            body = take_path(line, m.end())
            if ":" == line[m.end() + len(body):m.end() + len(body) + 1]:
                tail = re.match(r":[\w.\-+/]+", line[m.end() + len(body):])
                body += tail.group(0) if tail else ""
            body = clean(body)
            first = body.split("/")[0].split(":")[0]
            if first in TOP_DIRS or body.startswith(":"):
                yield no, "//" + body, "label", line[:m.start()]
        if kind == "md":
            # `dir/a.h`, `b.h`: a bare file name after a path, in the same
            # table cell, is that path's sibling.
            for cell in (line.split("|") if line.lstrip().startswith("|") else []):
                folder = None
                for span in re.findall(r"`([^`]+)`", cell):
                    if PATH_START.match(span):
                        p = clean(take_path(span, 0))
                        folder = p.rstrip("/") if p.endswith("/") else os.path.dirname(p)
                    elif folder and re.fullmatch(r"[\w*\-]+\.(?:\w+|\*)", span):
                        yield no, folder + "/" + span, "sibling", ""
            for m in MD_LINK.finditer(line):
                target = m.group(1)
                if re.match(r"[a-z][\w+.-]*:", target) or target.startswith("#"):
                    continue
                target = target.split("#", 1)[0]
                if target:
                    yield no, target, "link", line[:m.start()]


def resolve(rel, path, what):
    """The repository-relative path a reference means (None: outside the tree)."""
    if what == "path" and not path.startswith("../"):
        norm = path
    else:
        base = os.path.dirname(rel)
        norm = os.path.normpath(os.path.join(base, path))
        if path.endswith("/"):
            norm += "/"
    if norm.startswith("../") or norm == "..":
        return None
    return norm[2:] if norm.startswith("./") else norm


def check(root, allowlist, verbose=False):
    tree = Tree(root)
    patterns = load_allowlist(allowlist)
    allow_rel = os.path.relpath(allowlist, root)
    stale = []
    checked = 0
    seen = set()  # a Markdown link is also a path: report it once
    for rel in sorted(tree.files):
        if rel == allow_rel or rel.startswith(("tests/fuzz/corpus/", "tests/fuzz/regressions/")) and not rel.endswith(".md"):
            continue
        kind = kind_of(rel, root)
        if not kind:
            continue
        for no, path, what, before in references(rel, kind, tree.read(rel)):
            if what == "sibling":
                ok, shown = tree.path_exists(path), path + " (a sibling of the path before it)"
            elif what == "label":
                ok, shown = tree.label_exists(path), path
            elif what == "rel":
                # Relative to the nearest folder of the file (or above it,
                # below the root) that has the first component as a folder;
                # a path whose first component is no folder of ours is
                # another tree's (RocksDB's db/..., include/...).
                first = path.split("/")[0]
                bases = []
                d = os.path.dirname(rel)
                while d:
                    if os.path.join(d, first) in tree.dirs:
                        bases.append(d)
                    d = os.path.dirname(d)
                if not bases:
                    continue
                ok = any(tree.path_exists(os.path.join(b, path)) for b in bases)
                shown = f"{path} (as {os.path.join(bases[0], path)})"
                ok = ok or allowed(os.path.join(bases[0], path), patterns)
            else:
                target = resolve(rel, path, what)
                if target is None:
                    continue
                ok = tree.path_exists(target)
                shown = target
                if not ok and "{" in target:
                    gone = [a for a in expand_braces(target) if not tree.path_exists(a)]
                    shown += " (missing: " + ", ".join(gone) + ")"
                ok = ok or allowed(target, patterns)
            checked += 1
            ok = ok or allowed(path, patterns) or bool(source_text.FOREIGN_BEFORE.search(before))
            if verbose:
                print(f"{'ok   ' if ok else 'STALE'} {rel}:{no}: {shown}")
            if not ok and (rel, no, shown.split(" ")[0]) not in seen:
                seen.add((rel, no, shown.split(" ")[0]))
                stale.append((rel, no, shown))
    return stale, checked, len(tree.files)


def main():
    here = os.path.dirname(os.path.realpath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(here),
                    help="repository root (default: the tree this script is in)")
    ap.add_argument("--allowlist", default=None,
                    help="known paths of other trees (default: tests/doc_paths_allowlist.txt)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every reference checked")
    args = ap.parse_args()
    root = os.path.realpath(args.root)
    allowlist = args.allowlist or os.path.join(root, "tests", "doc_paths_allowlist.txt")
    stale, checked, nfiles = check(root, allowlist, args.verbose)
    files = len({s[0] for s in stale})
    return source_text.finish(
        "doc_paths", [f"{rel}:{no}: {path}" for rel, no, path in stale],
        f"{len(stale)} stale path{'s' if len(stale) != 1 else ''} in {files} "
        f"file{'s' if files != 1 else ''} ({checked} references checked in {root}); fix each "
        f"reference, or list a path of another project in tests/doc_paths_allowlist.txt",
        f"all {checked} references exist ({nfiles} files in {root})")


if __name__ == "__main__":
    sys.exit(main())
