"""What a DBA feels (bench/felt_cost.py --myrocks): stock vs pooled MariaDB
MyRocks under sysbench, codec by codec and allocator by allocator.

Per run a private mariadbd: a copy of a data dir mariadb-install-db made
once, a socket and no networking, MyRocks (ha_rocksdb, which carries its own
RocksDB) the default engine with the codec in --rocksdb-default-cf-options.
sysbench prepares its tables, MyRocks flushes and compacts them (neither is
measured), then the measured part: sysbench oltp_write_only, then
oltp_read_write, each for a fixed time. Per workload: sysbench's
transactions/s; p95 and p99 latency from its --histogram, by sysbench's own
percentile rule (its one reported percentile, p99, is checked against it in
the tests); the server's CPU (utime + stime of /proc/PID/stat before and
after); its peak RSS over that part (VmHWM, reset through
/proc/PID/clear_refs just before); and, pooled, the leases the pool made
over it (ROCKPOOL_STATS, rewritten every second): the proof that compression
ran through rockpool while it was measured.

The sides differ only in mariadbd's environment, built by felt_dbbench's
side_env as for db_bench: stock preloads the allocator alone (nothing for
glibc), pooled "<allocator.so> <librockpool_interpose.so>" with
ROCKPOOL_OPTIONS=max_idle_per_key=8. That is what `rockpool run --
mariadbd-safe --malloc-lib=<allocator.so>` gives mariadbd: rockpool run sets
LD_PRELOAD to its object, and mariadbd-safe puts the malloc library in
front of what LD_PRELOAD holds. The clients (sysbench, mariadb,
mariadb-admin) get neither.
"""

import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from bench import felt_dbbench as dbb
from bench import felt_mariadb as mdb
from bench import felt_report as rep
from bench import felt_run
from bench import felt_stats as st
from bench.felt_session import SIDES, RunFailed, last_line

# The column family's codec: --rocksdb-default-cf-options. lz4_zstd is
# Facebook's published MyRocks my.cnf: LZ4 on every level, ZSTD (level 1,
# its compression_opts) on the bottommost one.
CODECS = {
    "lz4": "compression=kLZ4Compression",
    "lz4hc": "compression=kLZ4HCCompression",
    "zlib": "compression=kZlibCompression",
    "zstd": "compression=kZSTD",
    "lz4_zstd": ("compression_per_level=kLZ4Compression;bottommost_compression=kZSTD;"
                 "compression_opts=-14:1:0"),
}
DEFAULT_CODECS = ("lz4", "lz4hc", "zlib", "lz4_zstd")
QUICK_CODECS = ("lz4",)
DEFAULT_ALLOCATORS = ("glibc", "jemalloc")
QUICK_ALLOCATORS = ("glibc",)
WORKLOADS = ("oltp_write_only", "oltp_read_write")  # measured in this order, one server
# Small memtables and SST files, as tests/myrocks/run.sh: oltp_write_only
# fills several memtables, so flushes and compactions (compression) run
# while it is measured. A small block cache, so reads decompress blocks.
SST_FILE = "8m"
BLOCK_CACHE = "8M"
# Sizes: (default, --quick). --quick's memtables are smaller still, so its
# few seconds flush even on a loaded machine.
SECONDS = (20, 5)
TABLES = (4, 2)
ROWS = (20000, 5000)
WRITE_BUFFER = ("4m", "1m")
THREADS = 4
# Before each measured workload and after the last one, both sides wait
# this long: background flushes settle, and the pooled side's statistics
# file (rewritten every second) has been rewritten since.
SETTLE_S = 1.5
PATH_FLAGS = ("mariadbd", "mariadb_bindir", "sysbench")
SOCKET_PATH_MAX = 107  # sun_path holds 108 bytes with the terminating NUL

# The figures of a cell (felt_stats.METRICS's shape): (key, label, unit,
# lower is better, felt fraction of stock, felt floor, in the verdict).
# Judged: what sysbench's user feels, transactions/s and p99 latency; the
# rest is shown. The server's CPU over a fixed time follows its throughput
# (sysbench keeps it busy); CPU per transaction is the cost.
METRICS = (
    ("tps", "transactions/s", "ops/s", False, 0.03, 1, True),
    ("p95_us", "p95", "us", True, 0.05, 100, False),
    ("p99_us", "p99", "us", True, 0.05, 100, True),
    ("cpu_s", "server CPU", "s", True, 0.03, 0.01, False),
    ("cpu_us_per_txn", "CPU/transaction", "us", True, 0.03, 1, False),
    ("hwm_kb", "peak RSS", "KiB", True, 0.05, 1024, False),
)


def cf_options(codec, write_buffer):
    """--rocksdb-default-cf-options of a codec."""
    return f"{CODECS[codec]};write_buffer_size={write_buffer};target_file_size_base={SST_FILE}"


def server_args(codec, write_buffer):
    """mariadbd's MyRocks options of one cell: the codec and memtable size in
    the default column family's options, a small block cache."""
    return [f"--rocksdb-default-cf-options={cf_options(codec, write_buffer)}",
            f"--rocksdb-block-cache-size={BLOCK_CACHE}"]


def parse_codecs(text):
    names = [s.strip() for s in text.split(",") if s.strip()]
    for n in names:
        if n not in CODECS:
            raise ValueError(f"unknown codec {n!r} (known: {', '.join(CODECS)})")
    if not names:
        raise ValueError("--codecs: none selected")
    return list(dict.fromkeys(names))


# ---------------------------------------------------------------- parsing

_TRANSACTIONS = re.compile(r"^\s*transactions:\s+(\d+)\s+\(([\d.]+) per sec\.\)", re.M)
_IGNORED = re.compile(r"^\s*ignored errors:\s+(\d+)", re.M)
_TOTAL_TIME = re.compile(r"^\s*total time:\s+([\d.]+)s", re.M)
_AVG = re.compile(r"^\s*avg:\s+([\d.]+)", re.M)
_REPORTED = re.compile(r"^\s*(\d+)th percentile:\s+([\d.]+)", re.M)
_VERSION = re.compile(r"^sysbench (\S+)", re.M)
_HISTOGRAM_ROW = re.compile(r"^\s*(\d+\.\d+) \|\**\s+(\d+)\s*$")


def histogram(text):
    """The rows (latency ms, count) of sysbench's --histogram=on table."""
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith("Latency histogram"):
            inside = True
            continue
        if inside:
            m = _HISTOGRAM_ROW.match(line)
            if m:
                rows.append((float(m.group(1)), int(m.group(2))))
            elif rows:
                break
    return rows


def percentile(rows, pct):
    """sysbench's own rule (sb_histogram): the first bucket at which the
    running count reaches round(events * pct / 100); None when empty."""
    n = sum(c for _, c in rows)
    goal = int(n * pct / 100 + 0.5)
    if goal == 0:
        return None
    seen = 0
    for value, count in rows:
        seen += count
        if seen >= goal:
            return value
    return rows[-1][0]


def parse_sysbench(text):
    """A `sysbench ... run --histogram=on` report -> its figures; ValueError
    (one line) when it has no transactions line or no histogram."""
    m = _TRANSACTIONS.search(text)
    if not m:
        raise ValueError("no 'transactions: N (X per sec.)' line")
    rows = histogram(text)
    if not rows:
        raise ValueError("no latency histogram (--histogram=on)")
    out = {"transactions": int(m.group(1)), "tps": float(m.group(2)),
           "p95_us": percentile(rows, 95) * 1000, "p99_us": percentile(rows, 99) * 1000,
           "histogram_events": sum(c for _, c in rows)}
    for key, rx, kind in (("ignored_errors", _IGNORED, int), ("seconds", _TOTAL_TIME, float),
                          ("avg_ms", _AVG, float)):
        found = rx.search(text)
        out[key] = kind(found.group(1)) if found else None
    reported = _REPORTED.search(text)
    if reported:
        out["reported_percentile"] = [int(reported.group(1)), float(reported.group(2))]
    return out


def pool_leases(stats_path):
    """`total: leases=N` of the last `rockpool report:` line of a
    ROCKPOOL_STATS file; None when there is none yet."""
    try:
        with open(stats_path, encoding="utf-8", errors="replace") as f:
            lines = [s for s in f if "rockpool report:" in s]
    except OSError:
        return None
    m = re.search(r"\| total: [^|]*\bleases=(\d+)", lines[-1]) if lines else None
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------- one run

@dataclass(frozen=True)
class Sizes:
    seconds: int
    tables: int
    rows: int
    threads: int
    write_buffer: str = WRITE_BUFFER[0]


def sysbench_argv(tools, sock, workload, sizes, command):
    """sysbench's bundled lua workload against the server's socket;
    --rand-seed=1, so both sides draw the same rows."""
    argv = [tools.sysbench, workload, "--db-driver=mysql", f"--mysql-socket={sock}",
            "--mysql-user=root", "--mysql-db=sbtest", "--mysql-storage-engine=rocksdb",
            f"--tables={sizes.tables}", f"--table-size={sizes.rows}",
            f"--threads={sizes.threads}", "--rand-seed=1"]
    if command == "run":
        argv += [f"--time={sizes.seconds}", "--events=0", "--report-interval=0",
                 "--percentile=99", "--histogram=on"]
    return argv + [command]


class Bench:
    """The temporary directory, the template data dir and the runs."""

    def __init__(self, tools, face, tmp, sizes, log=sys.stderr, base_env=None):
        self.tools, self.face, self.tmp, self.sizes, self.log = tools, face, tmp, sizes, log
        self.base_env = dict(os.environ if base_env is None else base_env)
        # The clients: nothing preloaded, no rockpool settings.
        self.client_env = dbb.side_env(self.base_env, "glibc", "stock", face)
        self.template = os.path.join(tmp, "template")
        sock = os.path.join(tmp, "run", "sock")
        if len(sock) > SOCKET_PATH_MAX:
            raise dbb.SetupError(f"{sock}: too long for a socket path ({SOCKET_PATH_MAX} "
                                 "bytes at most); pass a shorter --tmpdir")
        self.mariadb_version = self.rocksdb_version = None

    def say(self, text):
        print(text, file=self.log, flush=True)

    def install(self):
        """The data dir every run copies (mariadb-install-db, once)."""
        log = os.path.join(self.tmp, "install-db.log")
        with open(log, "w", encoding="utf-8") as f:
            r = subprocess.run([self.tools.client("mariadb-install-db"), "--no-defaults",
                                f"--datadir={self.template}", *mdb.root_user(),
                                "--auth-root-authentication-method=normal"],
                               env=self.client_env, stdout=f, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise RunFailed(f"mariadb-install-db exited {r.returncode}: {last_line(log)}")

    def sysbench(self, server, workload, command, out):
        argv = sysbench_argv(self.tools, server.sock, workload, self.sizes, command)
        try:
            with open(out, "w", encoding="utf-8") as f:
                r = subprocess.run(argv, env=self.client_env, stdout=f,
                                   stderr=subprocess.STDOUT, timeout=self.sizes.seconds + 300)
        except subprocess.TimeoutExpired:
            raise RunFailed(f"sysbench {workload} {command} did not finish") from None
        if r.returncode != 0:
            raise RunFailed(f"sysbench {workload} {command} exited {r.returncode}: "
                            f"{last_line(out)}")
        with open(out, encoding="utf-8", errors="replace") as f:
            return f.read()

    def settle(self, stats):
        time.sleep(SETTLE_S)
        return pool_leases(stats) if stats else None

    def measure(self, server, workload, stats):
        """One measured workload: sysbench's figures and the server's."""
        pid = server.child.pid
        hwm_reset = mdb.reset_peak_rss(pid)
        before, t0 = mdb.proc_stat(pid), time.monotonic()
        text = self.sysbench(server, workload, "run", os.path.join(server.root, workload))
        wall = time.monotonic() - t0
        after = mdb.proc_stat(pid)
        fig = {"wall_s": wall, "cpu_s": after["cpu_s"] - before["cpu_s"],
               "minflt": after["minflt"] - before["minflt"],
               "hwm_kb": felt_run.read_status_kb(pid, "VmHWM"),
               "rss_end_kb": felt_run.read_status_kb(pid, "VmRSS"), "hwm_reset": hwm_reset}
        try:
            fig.update(parse_sysbench(text))
        except ValueError as e:
            raise RunFailed(f"sysbench {workload}: {e}") from None
        fig["cpu_us_per_txn"] = (fig["cpu_s"] * 1e6 / fig["transactions"]
                                 if fig["transactions"] else None)
        return fig

    def run(self, codec, allocator, side, what):
        """One server life: {workload: figures}, and the life's own figures."""
        root = os.path.join(self.tmp, "run")
        shutil.rmtree(root, ignore_errors=True)
        os.mkdir(root)
        shutil.copytree(self.template, os.path.join(root, "data"), symlinks=True)
        env = dbb.side_env(self.base_env, allocator, side, self.face)
        stats = os.path.join(root, "rockpool_stats") if side == "pooled" else None
        if stats:
            env.update(ROCKPOOL_STATS=stats, ROCKPOOL_STATS_SECONDS="1")
        server = mdb.Server(self.tools, root, codec, server_args(codec, self.sizes.write_buffer),
                            env, self.client_env)
        try:
            server.start()
            if self.mariadb_version is None:
                self.mariadb_version = server.sql("SELECT VERSION()")
                self.rocksdb_version = (mdb.rocksdb_version(server.datadir) or
                                        "git " + server.sql("SELECT @@rocksdb_git_hash"))
            server.sql("CREATE DATABASE sbtest")
            self.sysbench(server, WORKLOADS[0], "prepare", os.path.join(root, "prepare"))
            server.sql("SET GLOBAL rocksdb_force_flush_memtable_now = 1")
            server.sql("SET GLOBAL rocksdb_compact_cf = 'default'")
            figures, leases = {}, self.settle(stats)
            for workload in WORKLOADS:
                figures[workload] = self.measure(server, workload, stats)
                now = self.settle(stats)
                if stats:
                    figures[workload]["pool_leases"] = (now - leases if None not in (now, leases)
                                                        else None)
                    report = dbb.pool_report_kb(stats) or {}
                    figures[workload]["pool_idle_kb"] = report.get("idle_kb")
                    figures[workload]["pool_peak_kb"] = report.get("peak_retained_kb")
                leases = now
            if stats and not any(f.get("pool_leases") for f in figures.values()):
                raise RunFailed(f"{what}: the pool leased nothing while measured "
                                f"({stats}: {pool_leases(stats)} leases in all); rockpool "
                                "did not serve MyRocks")
            life = server.stop()
        finally:
            server.kill()
        shutil.rmtree(root, ignore_errors=True)
        return figures, {k: life[k] for k in ("cpu_s", "maxrss_kb", "minflt", "wall_s")}

    def run_pairs(self, codec, allocator, pairs):
        """The cells of one codec and allocator: {workload: runs}."""
        runs, seq = {w: [] for w in WORKLOADS}, 0
        for pair in range(pairs):
            for side in (SIDES if pair % 2 == 0 else SIDES[::-1]):
                what = f"{codec} {allocator} {side} pair {pair + 1}"
                figures, life = self.run(codec, allocator, side, what)
                for workload, fig in figures.items():
                    runs[workload].append(dict(fig, side=side, pair=pair, seq=seq, life=life))
                seq += 1
                self.say(f"   {what}: " + "; ".join(
                    f"{w} {rep.fmt(f['tps'], 'ops/s')} tps, p99 {rep.fmt(f['p99_us'], 'us')}, "
                    f"CPU {rep.fmt(f['cpu_s'], 's')}, peak RSS {rep.fmt(f['hwm_kb'], 'KiB')}"
                    + (f", leases {f['pool_leases']}" if side == "pooled" else "")
                    for w, f in figures.items()))
        return runs


# ---------------------------------------------------------------- the matrix

def summarize(doc):
    """(Re)computes every MyRocks cell's summary from its raw runs."""
    for cell in doc.get("myrocks", []):
        cell["summary"] = st.summarize_figures(cell["runs"], METRICS)
    return doc


def new_doc(a, face, tools, sizes, loadavg):
    return {"tool": "felt_cost", "format": rep.FORMAT, "cells": [], "myrocks": [], "context": {
        "mode": "myrocks",
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": os.uname().nodename, "cpus": os.cpu_count(), "loadavg_start": loadavg(),
        "mariadbd": tools.mariadbd, "sysbench": tools.sysbench, "face": face.name,
        "object": face.obj, "pool_options": f"ROCKPOOL_OPTIONS={dbb.POOL_OPTIONS}",
        "pairs": a.pairs, "order": "stock, pooled; the starting side flips every other pair",
        "sizes": {"tables": sizes.tables, "rows": sizes.rows, "threads": sizes.threads,
                  "seconds": sizes.seconds},
        "cf_options": {c: cf_options(c, sizes.write_buffer) for c in a.codecs},
        "block_cache": BLOCK_CACHE,
        "allocators": {n: dbb.ALLOCATORS[n].about for n in a.allocators}}}


def sysbench_version(tools):
    r = subprocess.run([tools.sysbench, "--version"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    m = _VERSION.search(r.stdout)
    return m.group(1) if m else None


def measure(a, build_object, loadavg):
    """The MyRocks matrix (codecs x allocators x pairs): the JSON document.
    build_object(label) builds a rockpool object (felt_cost's)."""
    dbb.check_allocators(a.allocators)
    tools = mdb.Tools(a.mariadbd, a.mariadb_bindir, a.sysbench)
    mdb.check_tools(tools)
    if a.preload and not os.path.isfile(a.preload):
        raise dbb.SetupError(f"--preload={a.preload}: no such file")
    obj = a.preload or build_object("//rocksdb_plugin/legacy:librockpool_interpose.so")
    sizes = Sizes(a.myrocks_seconds, a.myrocks_tables, a.myrocks_rows, a.myrocks_threads,
                  WRITE_BUFFER[1 if a.quick else 0])
    tmp = tempfile.mkdtemp(prefix="felt_myrocks_", dir=a.tmpdir)
    try:
        # A private copy: a rebuild meanwhile cannot swap the object under a server.
        private = os.path.join(tmp, os.path.basename(obj))
        shutil.copyfile(obj, private)
        face = dbb.Face("interpose", tools.mariadbd, private)
        doc = new_doc(a, face, tools, sizes, loadavg)
        doc["context"]["object"] = os.path.abspath(obj)
        b = Bench(tools, face, tmp, sizes)
        total = len(a.codecs) * len(a.allocators)
        b.say(f"felt_cost --myrocks: {len(a.codecs)} codec(s) x {len(a.allocators)} "
              f"allocator(s) x {a.pairs} pair(s) = {2 * total * a.pairs} server runs, each "
              f"{' + '.join(WORKLOADS)} for {sizes.seconds} s ({sizes.tables} tables x "
              f"{sizes.rows} rows, {sizes.threads} threads)")
        b.install()
        n = 0
        for codec in a.codecs:
            for alloc in a.allocators:
                n += 1
                b.say(f"[{n}/{total}] {codec} under {alloc}: {a.pairs} pair(s)")
                for workload, runs in b.run_pairs(codec, alloc, a.pairs).items():
                    cell = {"workload": workload, "codec": codec, "allocator": alloc,
                            "runs": runs, "summary": st.summarize_figures(runs, METRICS)}
                    doc["myrocks"].append(cell)
                    tps = cell["summary"]["metrics"]["tps"]
                    b.say(f"   {workload}: {rep.fmt(tps['stock_median'], 'ops/s')} -> "
                          f"{rep.fmt(tps['pooled_median'], 'ops/s')} tps ({rep.fmt_ratio(tps)}, "
                          f"p {rep.fmt_p(tps)}): {cell['summary']['verdict']}")
                doc["context"].update(mariadb=b.mariadb_version, rocksdb=b.rocksdb_version,
                                      sysbench_version=sysbench_version(tools))
                if a.json:  # an interrupted run keeps the cells it finished
                    rep.save_json(doc, a.json)
        doc["context"]["loadavg_end"] = loadavg()
        return doc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------- the report

LEGEND = (
    "Per server run: sysbench prepares its tables, MyRocks flushes and compacts them (not "
    "measured), then oltp_write_only and oltp_read_write run for the time above each. "
    "transactions/s, p95 and p99 are sysbench's (the percentiles from its latency histogram, "
    "by its own rule); server CPU = utime + stime of mariadbd (/proc/PID/stat) over the "
    "workload, CPU/transaction = that / sysbench's transactions; peak RSS = mariadbd's VmHWM "
    "at the end of the workload, reset (/proc/PID/clear_refs) just before it; leases = the "
    "pooled server's pool leases over the workload (ROCKPOOL_STATS). Medians over the runs of "
    "each side; ratio = pooled / stock; p = two-sided Mann-Whitney U test; \"~\" = not "
    f"significant (p > {st.ALPHA}). Verdict: transactions/s and p99 count as felt when p <= "
    f"{st.ALPHA} and the difference is at least 3% and 1 transaction/s (transactions/s) or "
    "5% and 0.1 ms (p99); \"worse\" when either is worse pooled. The other figures are shown, "
    "not judged.")


def _cell_row(cell):
    s = cell["summary"]
    leases = [r["pool_leases"] for r in cell["runs"]
              if r["side"] == "pooled" and r.get("pool_leases") is not None]
    return ([cell["workload"], cell["codec"], cell["allocator"]]
            + rep.figure_columns(s["metrics"], METRICS)
            + [rep.fmt(st.median(leases), "count"), s["verdict"]])


def context_lines(ctx):
    out = rep.context_lines(ctx)
    for key, label in (("mariadb", "MariaDB"), ("mariadbd", "mariadbd"),
                       ("sysbench_version", "sysbench")):
        if ctx.get(key):
            out.append(f"- {label}: {ctx[key]}")
    sizes = ctx.get("sizes", {})
    if sizes:
        out.append(f"- sizes: {sizes['tables']} tables x {sizes['rows']} rows, "
                   f"{sizes['threads']} threads, {sizes['seconds']} s per workload")
    for codec, options in ctx.get("cf_options", {}).items():
        out.append(f"- codec {codec}: --rocksdb-default-cf-options={options}")
    if ctx.get("block_cache"):
        out.append(f"- --rocksdb-block-cache-size={ctx['block_cache']}")
    return out


def render_markdown(doc):
    lines = ["# What a DBA feels: stock vs pooled MariaDB MyRocks under sysbench", ""]
    lines += context_lines(doc.get("context", {})) + [""]
    lines += ["## Stock vs pooled, per workload, codec and allocator", ""]
    lines += rep.markdown_table(
        ["workload", "codec", "allocator"] + rep.figure_header(METRICS)
        + ["pool leases (pooled, median)", "verdict"],
        [_cell_row(c) for c in doc.get("myrocks", [])])
    return "\n".join(lines + ["", LEGEND]) + "\n"
