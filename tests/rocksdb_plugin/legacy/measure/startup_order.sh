#!/usr/bin/env bash
# Writes rocksdb_plugin/legacy/startup_order.txt: the function sections of
# librockpool_preload.so that a process runs when rockpool serves nothing
# (db_bench fillrandom,compact, ldb scan and sst_dump on an uncompressed DB,
# pooling switched on by ROCKPOOL_OPTIONS), for gold's
# --section-ordering-file (rocksdb_plugin/BUILD.bazel, STARTUP_ORDER: why).
# The functions are those callgrind sees run in the object; constructor and
# destructor variants (C1/C2, D0/D1/D2) are listed together.
#
# Usage (from the repository root): tests/rocksdb_plugin/legacy/measure/startup_order.sh
# Then check the result: bazel run //bench:fixed_cost
set -euo pipefail
cd "$(dirname "$0")/../../../.."
BAZEL=${BAZEL:-bazel}
$BAZEL build --symlink_prefix=/ //rocksdb_plugin:librockpool_preload.so >/dev/null 2>&1
OBJ=$($BAZEL info --symlink_prefix=/ bazel-bin 2>/dev/null)/rocksdb_plugin/librockpool_preload.so
WORK=$(mktemp -d /tmp/rockpool_startup_order.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

/usr/bin/db_bench --benchmarks=fillrandom,compact --num=20000 --compression_type=none \
  --db="$WORK/db" >/dev/null 2>&1
run() {  # <profile name> <command...>
  ROCKPOOL_OPTIONS=max_idle_per_key=8 LD_PRELOAD="$OBJ" valgrind --tool=callgrind \
    --demangle=no --callgrind-out-file="$WORK/$1.cg" "${@:2}" >/dev/null 2>&1
}
run bench /usr/bin/db_bench --benchmarks=fillrandom,compact --num=20000 \
  --compression_type=none --db="$WORK/bench_db"
run ldb /usr/bin/ldb --db="$WORK/db" scan
run sst_dump /usr/bin/sst_dump --file="$WORK/db" --command=check

python3 - "$OBJ" "$WORK"/*.cg >rocksdb_plugin/legacy/startup_order.txt <<'PY'
import os, re, sys
obj = os.path.basename(sys.argv[1])
names = set()
for path in sys.argv[2:]:
    objects, functions, ob, cob = {}, {}, None, None
    for line in open(path, errors="replace"):
        m = re.match(r"^(ob|cob|fn|cfn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        kind, key, name = m.groups()
        table = objects if kind in ("ob", "cob") else functions
        if name:
            table[key] = name
        if kind == "ob":
            ob = objects.get(key)
        elif kind == "cob":
            cob = objects.get(key)
        else:
            where = ob if kind == "fn" else (cob or ob)
            if where and os.path.basename(where) == obj:
                names.add(functions.get(key))
            if kind == "cfn":
                cob = None
fns = set()
for n in names:
    if not n or n.startswith("0x") or n.startswith("_GLOBAL__"):
        continue
    n = re.sub(r"'\d+$", "", n)  # callgrind's mark of a recursion level
    # A complete-object constructor or destructor (C1, D1, D0; C1I... for a
    # template constructor) lives in its base-object twin's section (C2, D2).
    fns.add(re.sub(r"C1(?=[EI])", "C2", re.sub(r"D[01](?=E)", "D2", n)))
    fns.add(n)
# The 64 KiB-aligned anchor first (rocksdb_plugin/legacy/startup_anchor.cc), then the
# unnamed .text of crtbegin (frame_dummy and friends run at load), the
# constructors, and every function that ran. Their .text.unlikely parts are
# left out: they did not run, and they would push the read-only data that
# follows out of the anchor's 64 KiB window.
print(".text.rockpool_startup_anchor")
print(".text")
print(".text.startup*")
for f in sorted(fns):
    print(f".text.{f}")
PY
echo "startup_order: $(grep -c . rocksdb_plugin/legacy/startup_order.txt) lines written"
