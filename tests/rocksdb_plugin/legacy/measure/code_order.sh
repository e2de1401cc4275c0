#!/usr/bin/env bash
# Writes the two lists gold's --section-ordering-file places together
# (rocksdb_plugin/legacy/BUILD.bazel, code_order: why), from callgrind runs of
# librockpool_preload.so in Debian's tools:
#   - rocksdb_plugin/legacy/startup_order.txt: the functions a process runs
#     when rockpool serves nothing (db_bench fillrandom,compact, ldb scan and
#     sst_dump on an uncompressed DB, pooling switched on by ROCKPOOL_OPTIONS);
#   - rocksdb_plugin/legacy/served_order.txt: the functions a process runs
#     when rockpool serves a codec, and not at start-up (db_bench
#     fillrandom,compact,readrandom with a 1 MiB block cache, then
#     readwhilewriting with 8 threads, per codec: zlib, zstd, zstd with a
#     dictionary, lz4, lz4hc), grouped by codec, so that a process serving
#     one codec keeps few 64 KiB windows of them resident.
# Constructor and destructor variants (C1/C2, D0/D1/D2) are listed together.
#
# With `--native PREFIX` (an upstream RocksDB install, as in
# rocksdb_plugin/README.md) it writes only rocksdb_plugin/native/startup_order.txt:
# the functions librockpool_native.so runs in the install's db_bench
# fillrandom,compact on an uncompressed DB with no compression_manager set
# (the release check, the registration, the constructors).
#
# Usage (from the repository root): tests/rocksdb_plugin/legacy/measure/code_order.sh
#   [--native PREFIX]
# Then check the result: bazel test //tests/rocksdb_plugin/legacy:startup_layout_test
# and bazel run //bench:fixed_cost
set -euo pipefail
cd "$(dirname "$0")/../../../.."
BAZEL=${BAZEL:-bazel}
WORK=$(mktemp -d /tmp/rockpool_code_order.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
if [ "${1:-}" = "--native" ]; then
  PREFIX=$(realpath "$2")
  UPSTREAM=("--output_base=$HOME/.cache/bazel_upstream")
  FLAGS=(--symlink_prefix=/ "--repo_env=ROCKPOOL_ROCKSDB_PREFIX=$PREFIX")
  $BAZEL "${UPSTREAM[@]}" build "${FLAGS[@]}" //rocksdb_plugin/native:librockpool_native.so \
    >/dev/null 2>&1
  BIN=$($BAZEL "${UPSTREAM[@]}" info "${FLAGS[@]}" bazel-bin 2>/dev/null)
  OBJ=$BIN/rocksdb_plugin/native/librockpool_native.so
  LD_LIBRARY_PATH="$PREFIX/lib" LD_PRELOAD="$OBJ" valgrind --tool=callgrind --fair-sched=yes \
    --demangle=no --callgrind-out-file="$WORK/native_startup.bench.cg" "$PREFIX/bin/db_bench" \
    --benchmarks=fillrandom,compact --num=20000 --compression_type=none --db="$WORK/db" \
    >/dev/null 2>&1
else
$BAZEL build --symlink_prefix=/ //rocksdb_plugin:librockpool_preload.so >/dev/null 2>&1
BIN=$($BAZEL info --symlink_prefix=/ bazel-bin 2>/dev/null)
OBJ=$BIN/rocksdb_plugin/legacy/librockpool_preload.so

/usr/bin/db_bench --benchmarks=fillrandom,compact --num=20000 --compression_type=none \
  --db="$WORK/db" >/dev/null 2>&1
run() {  # <profile name> <command...>; $POOL: ROCKPOOL_OPTIONS
  ROCKPOOL_OPTIONS=${POOL:-max_idle_per_key=8} LD_PRELOAD="$OBJ" valgrind --tool=callgrind \
    --fair-sched=yes --demangle=no --callgrind-out-file="$WORK/$1" "${@:2}" >/dev/null 2>&1
}
run startup.bench.cg /usr/bin/db_bench --benchmarks=fillrandom,compact --num=20000 \
  --compression_type=none --db="$WORK/bench_db"
run startup.ldb.cg /usr/bin/ldb --db="$WORK/db" scan
run startup.sst_dump.cg /usr/bin/sst_dump --file="$WORK/db" --command=check
served() {  # <codec name> <db_bench flags...>
  (
    run "served.$1.cg" /usr/bin/db_bench --benchmarks=fillrandom,compact,readrandom \
      --num=20000 --reads=5000 --cache_size=1048576 --db="$WORK/served_$1" "${@:2}"
    # Then 8 readers and a writer on the same DB, one context retained per
    # key and idle ones freed after a second: leases beyond it create and
    # destroy contexts, the idle sweep runs, and threads meet on the pool's
    # locks (absl::Mutex's slow paths), as a busy server's do.
    POOL="max_idle_per_key=1;idle_seconds=1" run "served.$1.threads.cg" /usr/bin/db_bench \
      --benchmarks=readwhilewriting --use_existing_db=1 --threads=8 --duration=5 \
      --num=20000 --cache_size=1048576 --db="$WORK/served_$1" "${@:2}"
  ) &
}
served zlib --compression_type=zlib
served zstd --compression_type=zstd
served zstd_dict --compression_type=zstd --compression_max_dict_bytes=16384 \
  --compression_zstd_max_train_bytes=65536
served lz4 --compression_type=lz4
served lz4hc --compression_type=lz4hc
wait

fi

nm -S --defined-only "$OBJ" >"$WORK/symbols"
# The input sections the objects are linked from: a function gcc deems cold
# (absl's ABSL_ATTRIBUTE_COLD slow paths) and the cold part gcc splits off a
# function (name.cold) live in .text.unlikely.<name>, not .text.<name>.
# Only the served list needs them: the native start-up list does not.
touch "$WORK/sections"
[ -n "${PREFIX:-}" ] || find "$BIN/rocksdb_plugin" "$BIN/compression" "$BIN/external/absl_pic" \
  -name '*.pic.o' -exec readelf -SW {} + | grep -o ' \.text\.[^ ]*' | sort -u >"$WORK/sections"
python3 - "$WORK" "$OBJ" <<'PY'
import os, re, sys
work, obj = sys.argv[1], os.path.basename(sys.argv[2])
sections = {line.strip() for line in open(os.path.join(work, "sections"))}


def served_section(name):
    """The section a function that ran when serving lives in; None for code
    not in a section of its own (libgcc's, absl's LowLevelAlloc)."""
    if name.endswith(".cold"):
        name, candidates = name[:-len(".cold")], (".text.unlikely.",)
    else:
        candidates = (".text.", ".text.unlikely.")
    for prefix in candidates:
        if prefix + name in sections:
            return prefix + name
    return None


def ran(path):
    """The object's functions callgrind saw run, by the names of their sections."""
    names, objects, functions, ob, cob = set(), {}, {}, None, None
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
    out = set()
    for n in names:
        if not n or n.startswith("0x") or n.startswith("_GLOBAL__"):
            continue
        n = re.sub(r"'\d+$", "", n)  # callgrind's mark of a recursion level
        # A complete-object constructor or destructor (C1, D1, D0; C1I... for
        # a template constructor) lives in its base-object twin's section.
        out.add(re.sub(r"C1(?=[EI])", "C2", re.sub(r"D[01](?=E)", "D2", n)))
        out.add(n)
    return out


profiles = sorted(p for p in os.listdir(work) if p.endswith(".cg"))
START_UP = ".text.rockpool_startup_anchor\n.text\n.text.startup*"  # see below
if obj == "librockpool_native.so":
    with open("rocksdb_plugin/native/startup_order.txt", "w") as f:
        print(START_UP, file=f)
        for n in sorted(ran(os.path.join(work, "native_startup.bench.cg"))):
            print(f".text.{n}", file=f)
    sys.exit(0)
startup = set().union(*(ran(os.path.join(work, p)) for p in profiles
                        if p.startswith("startup.")))
served = {}  # function -> the codecs whose runs ran it
for p in profiles:
    if p.startswith("served."):
        for n in ran(os.path.join(work, p)) - startup:
            served.setdefault(n, set()).add(p.split(".")[1])
size = {}
for line in open(os.path.join(work, "symbols")):
    f = line.split()
    if len(f) == 4 and f[2] in "tTwW":
        size[f[3]] = int(f[1], 16)
# Code the short runs may miss, added by name:
#   - Abseil's lock and thread-identity code (and what it calls once: the
#     CPU count, its allocator) runs its slow paths only when threads meet
#     on a lock, which callgrind's one-at-a-time threads rarely make happen:
#     every codec's pools may reach all of it;
#   - each pool's upkeep (the idle sweep, destroying contexts beyond the
#     cap) runs on timing: it goes with the pool's codec.
contended = re.compile(r"Mutex|CondVar|synchronization_internal|PerThreadSem|SpinLock"
                       r"|ThreadIdentity|AbslInternal|LowLevelAlloc|NumCPUs|CycleClock")
upkeep = re.compile(r"^_ZN8rockpool11ContextPool.*(Sweep|Destroy|Trim)")
all_codecs = {c for cs in served.values() for c in cs}
pool_codecs = [("LZ4_streamHC", {"lz4hc"}), ("LZ4_stream_u", {"lz4"}), ("Zlib", {"zlib"}),
               ("Zstd", {"zstd", "zstd_dict"}), ("SizeClass", {"zstd", "zstd_dict"})]
for n in size:
    if n in startup:
        continue
    if contended.search(n):
        served[n] = set(all_codecs)
    elif upkeep.search(n):
        owners = next((o for key, o in pool_codecs if key in n), set())
        served.setdefault(n, set()).update(owners & all_codecs)
# Each codec's functions after those of the codecs before it, in this
# order: zlib first, whose per-block state is the largest churn rockpool
# removes; zstd next, then lz4.
codecs = sorted({c for cs in served.values() for c in cs},
                key=["zlib", "zstd", "zstd_dict", "lz4", "lz4hc"].index)
rank = {c: i for i, c in enumerate(codecs)}
order = sorted(served, key=lambda n: (min(rank[c] for c in served[n]), -len(served[n]), n))
spans, offset = {c: set() for c in codecs}, 0  # the 64 KiB windows each codec's code spans
for n in order:
    offset = (offset + 15) // 16 * 16
    end = offset + size.get(n, 0)
    for c in served[n]:
        spans[c].update(range(offset // 65536, max(offset, end - 1) // 65536 + 1))
    offset = end
# The 64 KiB-aligned anchors first (rocksdb_plugin/layout_anchors.cc).
# Start-up: the anchor, the unnamed .text of crtbegin (frame_dummy and
# friends run at load), the constructors, and every function that ran; their
# .text.unlikely parts are left out (they did not run, and they would push
# the read-only data that follows out of the anchor's window).
with open("rocksdb_plugin/legacy/startup_order.txt", "w") as f:
    print(START_UP, file=f)
    for n in sorted(startup):
        print(f".text.{n}", file=f)
with open("rocksdb_plugin/legacy/served_order.txt", "w") as f:
    print(".text.rockpool_served_anchor", file=f)
    for section in dict.fromkeys(served_section(n) for n in order):
        if section:
            print(section, file=f)
print(f"code_order: {len(startup)} start-up and {len(served)} served functions; "
      f"64 KiB windows of served code per codec: { {c: len(spans[c]) for c in codecs} }")
PY
