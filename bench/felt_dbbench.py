"""db_bench for the felt-cost benchmark (bench/felt_cost.py): the allocators,
the workloads and their command lines, each side's environment, and the
parser of db_bench's output.

Stock and pooled differ only in the environment (or, for the native face,
one line of an OPTIONS file): stock preloads the allocator alone (nothing
for glibc); pooled preloads "<allocator.so> <rockpool object>" and sets
ROCKPOOL_OPTIONS=max_idle_per_key=8, exactly what `rockpool run` sets
(tools/rockpool/run_command.cc). Both sides run the same db_bench command
with the same seed, so they do the same work.
"""

import os
import re
from dataclasses import dataclass

LIBDIR = "/usr/lib/x86_64-linux-gnu"
POOL_OPTIONS = "max_idle_per_key=8"
NATIVE_MANAGER = "compression_manager={id=rockpool;max_idle_per_key=8}"


@dataclass(frozen=True)
class Allocator:
    name: str
    so: str  # preloaded on both sides; "" for glibc's malloc
    env: tuple  # extra (name, value) pairs on both sides
    package: str  # the Debian package that installs so
    about: str


ALLOCATORS = {
    a.name: a for a in (
        Allocator("glibc", "", (), "libc6", "glibc's malloc, nothing preloaded"),
        Allocator("jemalloc", f"{LIBDIR}/libjemalloc.so.2", (), "libjemalloc2",
                  "jemalloc 5.3.0 as Debian ships it"),
        # The best a user could do without rockpool: a thread cache that holds
        # LZ4HC's 256 KiB streams, so freeing and re-callocing one no longer
        # purges and re-faults its pages.
        Allocator("jemalloc_tuned", f"{LIBDIR}/libjemalloc.so.2",
                  (("MALLOC_CONF", "tcache_max:524288"),), "libjemalloc2",
                  "jemalloc with MALLOC_CONF=tcache_max:524288"),
        Allocator("tcmalloc", f"{LIBDIR}/libtcmalloc_minimal.so.4", (), "libtcmalloc-minimal4",
                  "gperftools' tcmalloc (minimal)"),
        # Not in the default matrix: jemalloc purging freed pages on a clock
        # of its own. Without it jemalloc purges only while the process
        # calls malloc and free, and a process that calls them less (pooled)
        # keeps freed pages resident longer; the soak separates the two.
        Allocator("jemalloc_bg", f"{LIBDIR}/libjemalloc.so.2",
                  (("MALLOC_CONF", "background_thread:true"),), "libjemalloc2",
                  "jemalloc with MALLOC_CONF=background_thread:true"),
    )
}


def add_allocator_from_path(name, path):
    """Registers a malloc library given by path (`--allocators=NAME=PATH`,
    e.g. a jemalloc built from its source); returns its name. ValueError
    when the file is missing or the name is taken by another library."""
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file")
    path = os.path.abspath(path)
    known = ALLOCATORS.get(name)
    if known is not None and known.so != path:
        raise ValueError(f"{name} already names {known.so or 'glibc'}")
    ALLOCATORS[name] = Allocator(name, path, (), path, f"{path}, preloaded")
    return name


# The matrix's allocators when --allocators is not given.
DEFAULT_ALLOCATORS = ("glibc", "jemalloc", "jemalloc_tuned", "tcmalloc")


class SetupError(Exception):
    """Something the machine lacks; the message is one line."""


def check_allocators(names, exists=os.path.exists):
    for name in names:
        a = ALLOCATORS[name]
        if a.so and not exists(a.so):
            raise SetupError(f"allocator {name}: {a.so} is missing; install {a.package} "
                             "(bash tools/setup.sh --stage=bench)")


@dataclass(frozen=True)
class Face:
    """Which db_bench, and how pooled loads rockpool into it."""
    name: str  # "preload" (Debian's 7.8.3), "interpose" or "native" (upstream >= 10.4)
    db_bench: str
    obj: str  # the rockpool object pooled preloads
    lib_dir: str = ""  # an upstream install's lib/, on LD_LIBRARY_PATH of both sides

    @property
    def stats_variable(self):
        """The variable naming the file a pooled run writes its report line to
        (with idle_bytes): the native face writes its close report to
        ROCKPOOL_NATIVE_STATS, the faces configured from the environment to
        ROCKPOOL_STATS."""
        return "ROCKPOOL_NATIVE_STATS" if self.name == "native" else "ROCKPOOL_STATS"


# Environment a child must not inherit: each side sets its own allocator and
# rockpool configuration, and a user's ROCKPOOL_* must never pool a stock run.
_CLEARED = ("LD_PRELOAD", "MALLOC_CONF", "LD_LIBRARY_PATH")


def side_env(base, allocator, side, face):
    """The environment of one side of one cell."""
    env = {k: v for k, v in base.items() if k not in _CLEARED and not k.startswith("ROCKPOOL_")}
    a = ALLOCATORS[allocator]
    env.update(dict(a.env))
    preload = [a.so] if a.so else []
    if side == "pooled":
        preload.append(face.obj)
        if face.name != "native":  # the native face takes its options from the OPTIONS file
            env["ROCKPOOL_OPTIONS"] = POOL_OPTIONS
    if preload:
        env["LD_PRELOAD"] = " ".join(preload)
    if face.lib_dir:
        env["LD_LIBRARY_PATH"] = face.lib_dir
    return env


# Sizes at --scale=1, picked so the default matrix (17 workloads x 4
# allocators x 5 pairs) takes ~25 minutes on a quiet 2-core machine.
SST_KEYS = 200_000  # x 200 B; lz4hc under jemalloc as shipped: ~10 s stock
BLOB_KEYS = 60_000  # x 1 KiB
READ_KEYS, READS = 200_000, 100_000  # x 100 B
SECONDARY_KEYS, SECONDARY_READS = 100_000, 100_000  # x 200 B
THREAD_KEYS = 25_000  # per writer, 8 writers
COMMON = ["--key_size=16", "--compression_ratio=0.5", "--seed=1", "--statistics=0",
          "--histogram=1"]
ZSTD_DICT = ["--compression_max_dict_bytes=16384",
             "--compression_zstd_max_train_bytes=1638400"]  # 100x the dictionary

GROUPS = {
    "sst": ("none", "zlib", "zstd", "zstd_dict", "lz4", "lz4hc"),
    "blob": ("zstd", "zlib", "lz4", "lz4hc"),
    "read": ("zlib", "zstd", "lz4hc"),
    "secondary": ("zstd", "zlib"),
    "threads": ("zstd", "zlib"),
}
WORKLOAD_NAMES = tuple(f"{g}_{c}" for g, codecs in GROUPS.items() for c in codecs)


def _n(count, scale):
    return max(100, int(count * scale))


def _codec_flags(codec):
    if codec == "zstd_dict":
        return ["--compression_type=zstd"] + ZSTD_DICT
    return [f"--compression_type={codec}"]


@dataclass(frozen=True)
class Workload:
    name: str  # "<group>_<codec>"

    @property
    def group(self):
        return self.name.split("_", 1)[0]

    @property
    def codec(self):
        return self.name.split("_", 1)[1]

    @property
    def fresh_db(self):
        """Each run starts from an empty DB (else: reads a DB filled once)."""
        return self.group in ("sst", "blob", "threads")

    @property
    def main_phase(self):
        return "readrandom" if self.group in ("read", "secondary") else "fillrandom"

    def fill_args(self, scale):
        """The unmeasured fill (stock, glibc) of the DB a read workload reads."""
        if self.fresh_db:
            return None
        keys, value = ((_n(READ_KEYS, scale), 100) if self.group == "read"
                       else (_n(SECONDARY_KEYS, scale), 200))
        # The secondary cache's DB is stored uncompressed: the only codec at
        # work is the cache's own.
        codec = self.codec if self.group == "read" else "none"
        return ["--benchmarks=fillrandom,compact", f"--num={keys}", f"--value_size={value}",
                f"--compression_type={codec}", "--key_size=16", "--compression_ratio=0.5",
                "--seed=1", "--statistics=0"]

    def run_args(self, scale):
        """The measured db_bench arguments (without --db)."""
        g, c = self.group, self.codec
        if g == "sst":
            return (["--benchmarks=fillrandom,compact", f"--num={_n(SST_KEYS, scale)}",
                     "--value_size=200"] + _codec_flags(c) + COMMON)
        if g == "blob":
            return (["--benchmarks=fillrandom,compact", f"--num={_n(BLOB_KEYS, scale)}",
                     "--value_size=1024", f"--compression_type={c}", "--enable_blob_files=1",
                     "--min_blob_size=512", f"--blob_compression_type={c}"] + COMMON)
        if g == "threads":
            # Small memtables and files, so the 8 background jobs have
            # flushes and (sub)compactions to run while the writers write.
            return (["--benchmarks=fillrandom,compact", f"--num={_n(THREAD_KEYS, scale)}",
                     "--value_size=200", f"--compression_type={c}", "--threads=8",
                     "--max_background_jobs=8", "--subcompactions=4",
                     "--write_buffer_size=4194304", "--target_file_size_base=4194304",
                     "--max_bytes_for_level_base=16777216"] + COMMON)
        if g == "read":
            return (["--benchmarks=readrandom", "--use_existing_db=1", "--readonly=1",
                     f"--num={_n(READ_KEYS, scale)}", f"--reads={_n(READS, scale)}",
                     "--value_size=100", "--cache_size=1048576", "--threads=1"] + COMMON)
        return (["--benchmarks=readrandom", "--use_existing_db=1", "--readonly=1",
                 f"--num={_n(SECONDARY_KEYS, scale)}", f"--reads={_n(SECONDARY_READS, scale)}",
                 "--value_size=200", "--cache_size=1048576",
                 "--use_compressed_secondary_cache=1",
                 "--compressed_secondary_cache_size=16777216",
                 f"--compressed_secondary_cache_compression_type={c}", "--threads=1"] + COMMON)


def pool_report_kb(stats_path):
    """The last `rockpool report:` line of a ROCKPOOL_STATS or
    ROCKPOOL_NATIVE_STATS file, in KiB: {"idle_kb": its idle_bytes,
    "peak_retained_kb": its peak_retained_bytes (None from an object older
    than that field)}; None when the file has no line (nothing was written)."""
    try:
        with open(stats_path, encoding="utf-8", errors="replace") as f:
            lines = [s for s in f.read().splitlines() if s.startswith("rockpool report:")]
    except OSError:
        return None
    if not lines:
        return None
    figures = {}
    for key, field in (("idle_kb", "idle_bytes"), ("peak_retained_kb", "peak_retained_bytes")):
        m = re.search(rf"\b{field}=(\d+)", lines[-1])
        figures[key] = int(m.group(1)) / 1024 if m else None
    return figures if figures["idle_kb"] is not None else None


def parse_workloads(text):
    """Names and groups ("sst", "all") -> Workloads; ValueError names the bad one."""
    out = []
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        if item == "all":
            names = WORKLOAD_NAMES
        elif item in GROUPS:
            names = tuple(f"{item}_{c}" for c in GROUPS[item])
        elif item in WORKLOAD_NAMES:
            names = (item,)
        else:
            raise ValueError(f"unknown workload {item!r} (known: {', '.join(WORKLOAD_NAMES)}; "
                             f"groups: {', '.join(GROUPS)}, all)")
        out.extend(Workload(n) for n in names if Workload(n) not in out)
    if not out:
        raise ValueError("no workload selected")
    return out


SOAK_KEYS = 500_000


def soak_args(codec, seconds, scale):
    """readwhilewriting with 8 readers (and db_bench's one writer, rate
    limited to 2 MiB/s so the LSM tree stays at a steady size) on a filled DB."""
    return ["--benchmarks=readwhilewriting", "--use_existing_db=1", "--threads=8",
            f"--duration={seconds}", f"--num={_n(SOAK_KEYS, scale)}", "--value_size=200",
            f"--compression_type={codec}", "--benchmark_write_rate_limit=2097152",
            "--write_buffer_size=8388608", "--target_file_size_base=8388608"] + COMMON


def soak_fill_args(codec, scale):
    return ["--benchmarks=fillrandom,compact", f"--num={_n(SOAK_KEYS, scale)}",
            "--value_size=200", f"--compression_type={codec}", "--key_size=16",
            "--compression_ratio=0.5", "--seed=1", "--statistics=0"]


# Arguments that describe the benchmark run rather than the DB's options:
# left out when db_bench writes the OPTIONS file the native face edits.
_RUN_ONLY = ("--benchmarks=", "--num=", "--reads=", "--use_existing_db=", "--readonly=",
             "--threads=", "--duration=", "--histogram=", "--seed=")


def options_template_args(run_args):
    """db_bench arguments that write an OPTIONS file with the workload's options."""
    kept = [a for a in run_args if not a.startswith(_RUN_ONLY)]
    return ["--benchmarks=fillseq", "--num=10"] + kept


def with_native_manager(options_text):
    """The OPTIONS file with compression_manager=rockpool in [CFOptions "default"]."""
    lines = options_text.splitlines()
    out, in_default, done = [], False, False
    for line in lines:
        if line.startswith("["):
            if in_default and not done:
                out.append("  " + NATIVE_MANAGER)
                done = True
            in_default = line.strip() == '[CFOptions "default"]'
        elif in_default and line.strip().startswith("compression_manager="):
            if not done:
                out.append("  " + NATIVE_MANAGER)
                done = True
            continue
        out.append(line)
    if in_default and not done:
        out.append("  " + NATIVE_MANAGER)
        done = True
    if not done:
        raise ValueError('no [CFOptions "default"] section in the OPTIONS file')
    return "\n".join(out) + "\n"


_PHASE = re.compile(r"^(\w+)\s*:\s*([\d.]+) micros/op\s+(\d+) ops/sec"
                    r"(?:\s+([\d.]+) seconds\s+(\d+) operations)?")
_PERCENTILES = re.compile(r"^Percentiles: P50: ([\d.]+) P75: ([\d.]+) P99: ([\d.]+)")
_VERSION = re.compile(r"^RocksDB:\s+version\s+(\S+)")


def parse_output(text, stderr=""):
    """db_bench's stdout (and stderr, where it prints its header) -> {"version",
    "phases": {name: figures}}: per benchmark its micros/op, ops/s, seconds
    and operations and, with --histogram=1, the P50/P99 latency (us) of the
    histogram after it."""
    version, phases, current = None, {}, None
    for line in stderr.splitlines():
        m = _VERSION.match(line)
        if m:
            version = m.group(1)
            break
    for line in text.splitlines():
        m = _VERSION.match(line)
        if m:
            version = m.group(1)
            continue
        m = _PHASE.match(line)
        if m:
            current = {"micros_op": float(m.group(2)), "ops": int(m.group(3))}
            if m.group(4):
                current["seconds"] = float(m.group(4))
                current["operations"] = int(m.group(5))
            phases[m.group(1)] = current
            continue
        m = _PERCENTILES.match(line)
        if m and current is not None and "p99_us" not in current:
            current["p50_us"] = float(m.group(1))
            current["p99_us"] = float(m.group(3))
    return {"version": version, "phases": phases}
