#!/usr/bin/env python3
"""Compaction memory, stock RocksDB vs rockpool, side by side.

For each codec (zstd, zlib, lz4, lz4hc) and block size (4 KiB, 16 KiB) this builds a DB
of ~--size_mb MB of uncompressed records with Debian's db_bench
(fillrandom), then runs a full compaction of it with stock RocksDB 7.8.3 and
with rockpool, each in its own process, --repeat times, alternating (through
tools/sst_replay --mode=compaction, which also checks that both produce
byte-identical data blocks).

BlobDB configurations (--blob_codecs, zstd, zlib, lz4, lz4hc): the same volume as
integrated BlobDB values (--blob_value_size, 2 KiB; enable_blob_files,
min_blob_size=512, blob_compression_type=<codec>, SSTs compressed with the
same codec). sst_replay copies such a DB whole and compacts it with blob
garbage collection at age cutoff 1.0, so RocksDB rewrites every blob: a
compression context per blob in stock RocksDB 7.8.3 (and an inflate stream
per zlib blob read); blob files are compared record by record.

LZ4 and LZ4HC (RocksDB 7.8.3: an LZ4_stream_t / LZ4_streamHC_t per block and
per blob) reach rockpool's pools only through a legacy face that interposes
liblz4; where it does not, sst_replay notes that no LZ4 stream reached the
pools, this script prints that note under the configuration, and pooled
equals stock there. It prints, per configuration and metric, the
median ± largest deviation for both and the pooled/stock ratio, and writes
Google-Benchmark-shaped JSON (--out) that bench/compare.py reads:

  bazel run //bench:compaction_memory -- --size_mb=200 --repeat=3 --out=/tmp/cm.json
  bazel run //bench:compare -- /tmp/cm.json --within stock pooled
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

METRICS = [  # (sst_replay metric, label, scale, unit)
    ("codec_bytes", "codec lib bytes", 2**20, "MiB"),
    ("codec_calls", "codec lib calls", 1, ""),
    ("process_bytes", "process bytes", 2**20, "MiB"),
    ("process_calls", "process calls", 1, ""),
    ("peak_rss_bytes", "peak RSS", 2**20, "MiB"),
    ("peak_heap_bytes", "peak heap", 2**20, "MiB"),
    ("minor_faults", "minor faults", 1, ""),
    ("cpu_ns", "compaction CPU", 1e6, "ms"),
    ("wall_ns", "compaction wall", 1e6, "ms"),
    ("contexts_created", "contexts created", 1, ""),
]


def fail(msg):
    sys.exit(f"compaction_memory: {msg}")


def sst_replay_path(explicit):
    if explicit:
        return explicit
    # Under `bazel run` this script runs from its runfiles tree, next to
    # tools/sst_replay/sst_replay.
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, "..", "tools", "sst_replay", "sst_replay")]
    if os.environ.get("RUNFILES_DIR"):
        candidates.append(os.path.join(os.environ["RUNFILES_DIR"], "rockpool", "tools",
                                       "sst_replay", "sst_replay"))
    for p in candidates:
        if os.path.exists(p):
            return os.path.normpath(p)
    fail("cannot find sst_replay; pass --sst_replay")


# Children configure rockpool explicitly (sst_replay's stock and pooled
# runs): a ROCKPOOL_OPTIONS/ROCKPOOL_STATS of the user's must not reach them.
CHILD_ENV = {k: v for k, v in os.environ.items() if not k.startswith("ROCKPOOL_")}


def build_db(db_bench, path, codec, block_size, size_mb):
    num = size_mb * 2**20 // 216  # 16-byte keys, 200-byte values
    cmd = [db_bench, "--benchmarks=fillrandom", f"--num={num}", "--value_size=200",
           "--key_size=16", f"--compression_type={codec}", f"--block_size={block_size}",
           f"--db={path}", "--disable_wal=1", "--threads=1", "--seed=1"]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       env=CHILD_ENV)
    if r.returncode != 0:
        fail(f"db_bench failed: {r.stderr.strip().splitlines()[-1:]}")


def build_blob_db(db_bench, path, codec, value_size, size_mb):
    num = size_mb * 2**20 // (16 + value_size)
    cmd = [db_bench, "--benchmarks=fillrandom", f"--num={num}", f"--value_size={value_size}",
           "--key_size=16", f"--compression_type={codec}", "--enable_blob_files=true",
           "--min_blob_size=512", f"--blob_compression_type={codec}", f"--db={path}",
           "--disable_wal=1", "--threads=1", "--seed=1"]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       env=CHILD_ENV)
    if r.returncode != 0:
        fail(f"db_bench failed: {r.stderr.strip().splitlines()[-1:]}")


def spread(runs):
    med = statistics.median(runs)
    return med, (max(abs(v - med) for v in runs) / med * 100 if med else 0.0)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size_mb", type=int, default=200, help="uncompressed data per DB")
    p.add_argument("--repeat", type=int, default=3, help="compactions per strategy")
    p.add_argument("--codecs", default="zstd,zlib,lz4,lz4hc")
    p.add_argument("--block_sizes", default="4096,16384")
    p.add_argument("--blob_codecs", default="zstd,zlib,lz4,lz4hc",
                   help="BlobDB configurations (blob compression); empty for none")
    p.add_argument("--blob_value_size", type=int, default=2048)
    p.add_argument("--out", help="write Google-Benchmark-shaped JSON here")
    p.add_argument("--work_dir", help="where the DBs go (default: a temp dir, removed)")
    p.add_argument("--db_bench", default="/usr/bin/db_bench")
    p.add_argument("--sst_replay", help="path to sst_replay (default: from runfiles)")
    args = p.parse_args()
    if args.size_mb <= 0 or args.repeat <= 0:
        fail("--size_mb and --repeat must be positive")
    if not os.access(args.db_bench, os.X_OK):
        fail(f"{args.db_bench} not found (rocksdb-tools; run tools/setup.sh)")
    replay = sst_replay_path(args.sst_replay)
    work = args.work_dir or tempfile.mkdtemp(prefix="rockpool_compaction_")
    os.makedirs(work, exist_ok=True)
    out = {"context": {"size_mb": args.size_mb, "repeat": args.repeat,
                       "rocksdb": "Debian 7.8.3", "host": os.uname().nodename},
           "benchmarks": []}
    try:
        configs = []  # (name, db path, builder, sst_replay flags)
        for codec in filter(None, args.codecs.split(",")):
            for bs in (int(b) for b in args.block_sizes.split(",")):
                db = os.path.join(work, f"{codec}_{bs}")
                configs.append((f"compaction/{codec}/{bs // 1024}K", db,
                                lambda db=db, codec=codec, bs=bs: build_db(
                                    args.db_bench, db, codec, bs, args.size_mb),
                                [f"--block_size={bs}"]))
        for codec in filter(None, args.blob_codecs.split(",")):
            db = os.path.join(work, f"blob_{codec}")
            configs.append((f"compaction/blobdb-{codec}/{args.blob_value_size}B", db,
                            lambda db=db, codec=codec: build_blob_db(
                                args.db_bench, db, codec, args.blob_value_size, args.size_mb),
                            []))
        for name, db, build, flags in configs:
            shutil.rmtree(db, ignore_errors=True)
            print(f"== {name}: building {args.size_mb} MB with db_bench ...", file=sys.stderr)
            build()
            print(f"== {name}: compacting, {args.repeat} x stock and pooled ...", file=sys.stderr)
            r = subprocess.run([replay, "--mode=compaction", f"--repeat={args.repeat}",
                                *flags, "--json", "--progress=false",
                                f"--tmpdir={work}", db],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=CHILD_ENV)
            if r.returncode != 0:
                fail(f"sst_replay exited {r.returncode}: {r.stderr.strip()}")
            mode = json.loads(r.stdout)["modes"][0]
            if not mode["identical"]:
                fail(f"{name}: pooled output differs from stock: {mode['difference']}")
            metrics = mode["metrics"]
            print(f"\n{name}  ({mode['description']})")
            print(f"  {'metric':<18} {'stock':>20} {'pooled':>20} {'pooled/stock':>13}")
            for key, label, scale, unit in METRICS:
                m = metrics.get(key)
                if not m:
                    continue
                (sm, ss), (pm, ps) = spread(m["stock"]["runs"]), spread(m["pooled"]["runs"])
                ratio = f"{pm / sm:.4f}" if sm else "~"
                print(f"  {label:<18} {sm / scale:>12.1f}{unit:>4}±{ss:>2.0f}% "
                      f"{pm / scale:>12.1f}{unit:>4}±{ps:>2.0f}% {ratio:>13}")
            for note in mode.get("notes", []):
                if note.startswith("LZ4:"):  # the LZ4 streams did not reach the pools
                    print(f"  note: {note}")
            for strategy in ("stock", "pooled"):
                for i in range(args.repeat):
                    entry = {"name": f"{name}/{strategy}", "run_name": f"{name}/{strategy}",
                             "run_type": "iteration", "repetition_index": i}
                    for key, _, _, _ in METRICS:
                        if key in metrics:
                            entry[key] = metrics[key][strategy]["runs"][i]
                    out["benchmarks"].append(entry)
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
