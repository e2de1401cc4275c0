"""A private MariaDB server with MyRocks for one measured run
(bench/felt_myrocks.py): its data dir, socket and error log in a directory
of its own, no networking, ha_rocksdb loaded and the default engine; and
what is read of it while it runs (/proc/PID/stat, VmHWM reset, MyRocks'
RocksDB release from its LOG).
"""

import os
import re
import subprocess
import time
from dataclasses import dataclass

from bench import felt_dbbench as dbb
from bench import felt_run
from bench.felt_session import RunFailed, last_line

START_TIMEOUT_S = 120
SHUTDOWN_TIMEOUT_S = 300


def parse_proc_stat(text, ticks_per_s):
    """/proc/PID/stat -> {"cpu_s": utime + stime, "minflt"}. The command name
    (in parentheses) may hold spaces and parentheses: fields count from the
    last ")"."""
    fields = text[text.rindex(")") + 1:].split()
    # fields[0] is the state (field 3 of proc(5)): minflt is 10, utime 14, stime 15.
    return {"cpu_s": (int(fields[11]) + int(fields[12])) / ticks_per_s, "minflt": int(fields[7])}


def proc_stat(pid):
    with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
        return parse_proc_stat(f.read(), os.sysconf("SC_CLK_TCK"))


def reset_peak_rss(pid):
    """VmHWM back to the current RSS (proc(5), clear_refs "5"): the peak of
    the measured part alone. False when the kernel refuses."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


def rocksdb_version(datadir):
    """MyRocks' RocksDB release, from its LOG ("RocksDB version: 6.29.5")."""
    try:
        with open(os.path.join(datadir, "#rocksdb", "LOG"), encoding="utf-8",
                  errors="replace") as f:
            m = re.search(r"RocksDB version: (\S+)", f.read())
    except OSError:
        return None
    return m.group(1) if m else None


@dataclass(frozen=True)
class Tools:
    mariadbd: str
    bindir: str  # mariadb, mariadb-admin, mariadb-install-db
    sysbench: str

    def client(self, name):
        return os.path.join(self.bindir, name)


def check_tools(tools):
    for path in (tools.mariadbd, tools.client("mariadb"), tools.client("mariadb-admin"),
                 tools.client("mariadb-install-db"), tools.sysbench):
        if not os.access(path, os.X_OK):
            raise dbb.SetupError(f"{path} is missing; install mariadb-server "
                                 "mariadb-plugin-rocksdb sysbench (bash tools/setup.sh "
                                 "--stage=myrocks)")


def root_user():
    return ["--user=root"] if os.geteuid() == 0 else []


class Server:
    """One mariadbd life in `root` (data/, sock, logs), in `env`."""

    def __init__(self, tools, root, label, engine_args, env, client_env):
        self.tools, self.root, self.env, self.client_env = tools, root, env, client_env
        self.label, self.engine_args = label, list(engine_args)
        self.datadir = os.path.join(root, "data")
        self.sock = os.path.join(root, "sock")
        self.err_log = os.path.join(root, "err.log")
        self.child = None

    def argv(self):
        return [self.tools.mariadbd, "--no-defaults", f"--datadir={self.datadir}",
                f"--socket={self.sock}", "--skip-networking", *root_user(),
                "--plugin-load-add=ha_rocksdb", "--default-storage-engine=ROCKSDB",
                *self.engine_args, f"--log-error={self.err_log}",
                f"--pid-file={os.path.join(self.root, 'pid')}"]

    def client(self, name, *args, timeout=600):
        return subprocess.run([self.tools.client(name), "--no-defaults", "-S", self.sock,
                               "-uroot", *args], env=self.client_env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=timeout)

    def failed(self, what, detail=""):
        why = detail or last_line(self.err_log) or "nothing in its error log"
        return RunFailed(f"mariadbd ({self.label}) {what}: {why}")

    def _exited(self):
        return os.waitid(os.P_PID, self.child.pid,
                         os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None

    def start(self):
        out = os.path.join(self.root, "stdout")
        self.child = felt_run.Child(self.argv(), self.env, out, out + ".err", 1.0).start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._exited():
                raise self.failed("exited while starting")
            if os.path.exists(self.sock) and self.client("mariadb-admin", "ping",
                                                         timeout=10).returncode == 0:
                return self
            time.sleep(0.1)
        raise self.failed(f"did not answer within {START_TIMEOUT_S} s")

    def sql(self, statement):
        r = self.client("mariadb", "-N", "-B", "-e", statement)
        if r.returncode != 0:
            raise self.failed(f"`{statement}`", (r.stdout.strip().splitlines() or [""])[-1])
        return r.stdout.strip()

    def stop(self):
        """Clean shutdown; the whole life's rusage (felt_run's figures)."""
        try:
            r = self.client("mariadb-admin", "shutdown", timeout=SHUTDOWN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            r = None
        if r is None or r.returncode != 0:
            self.kill()
            raise self.failed("did not shut down", r and r.stdout.strip())
        res = self.child.wait()
        if res["exit_code"] != 0:
            raise self.failed(f"exited {res['exit_code']} at shutdown")
        return res

    def kill(self):
        if self.child is not None:
            self.child.kill()
