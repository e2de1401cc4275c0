"""One child process of the felt-cost benchmark, measured as a user feels it:
wall time, and from the kernel's own accounting (os.wait4's rusage) user
and sys CPU, minor and major page faults and peak RSS (ru_maxrss); a thread
samples VmRSS from /proc/PID/status meanwhile, so the RSS the process still
held just before it exited, and its RSS over time (the soak), are known too.

How the child is started matters for ru_maxrss: exec keeps the high-water
mark of the image it replaces, so a program started directly by this
Python process (14 MB, 60+ MB once matplotlib is loaded) would report at
least Python's RSS as its peak. The child is therefore started by a small
/bin/sh, which puts it in the background, prints its PID and exits; this
process is a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so the child
becomes its own child and os.wait4 still returns the child's rusage. The
child's environment is passed through `env -i`, so neither sh nor env loads
the allocator or rockpool object meant for the child.

The child waits at a gate, a pipe it reads until this process closes it,
and this process closes it only once sh has been reaped. Without the gate a
child quicker than sh (/usr/bin/env, say) could exit first, and sh's
SIGCHLD handler would reap it: the rusage would be lost and os.waitid would
fail with ECHILD (seen about once in 3,000 runs on a loaded machine).

The child is waited for in two steps: os.waitid(WNOWAIT) returns when it has
exited but leaves it a zombie, so its PID cannot be reused while the sampler
still reads /proc/PID; only then does os.wait4 reap it and hand over the
rusage.
"""

import ctypes
import os
import signal
import subprocess
import threading
import time


PR_SET_CHILD_SUBREAPER = 36
# sh starts the child in the background (a plain fork of a ~1 MB shell),
# prints its PID and exits; the child gets exactly the environment given.
# sh's stdin is the gate: the background part keeps it as fd 3 (a background
# list's own stdin is /dev/null), reads it to its end, and only then execs.
_LAUNCH = ('exec 3<&0; '
           '{ read -r _ <&3; exec /usr/bin/env -i -- "$@" </dev/null 3<&-; } '
           '>"$FELT_OUT" 2>"$FELT_ERR" & echo "$!"')


def become_subreaper():
    """Orphaned descendants (the children sh leaves) become this process's children."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def read_status_kb(pid, field, name=None):
    """A KiB field of /proc/PID/status (VmRSS, VmHWM) of a live process; None
    once it has exited (a zombie has none), or while its Name (the first 15
    bytes of the program's file name) is not yet `name` (still sh or env,
    before the exec of the program)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        if name is not None and fields.get("Name", "").strip() != name:
            return None
        return int(fields[field].split()[0])
    except (OSError, ValueError, KeyError, IndexError):
        return None


def read_vmrss_kb(pid, name=None):
    """VmRSS of a live process in KiB (read_status_kb)."""
    return read_status_kb(pid, "VmRSS", name)


def read_mapped_rss_kb(pid, path):
    """Resident KiB of the mappings of file `path` in a live process (the Rss
    lines of /proc/PID/smaps under each mapping of it); None once it exited."""
    total, inside = 0, False
    try:
        with open(f"/proc/{pid}/smaps", encoding="utf-8", errors="replace") as f:
            for line in f:
                head = line.split(None, 5)
                if head and "-" in head[0] and not head[0].endswith(":"):
                    inside = len(head) == 6 and head[5].strip() == path
                elif inside and head and head[0] == "Rss:":
                    total += int(head[1])
    except (OSError, ValueError, IndexError):
        return None
    return total


def comm_of(program):
    """The Name /proc shows for a program started from this path."""
    return os.path.basename(program)[:15]


class Child:
    """A started child process and its RSS sampler."""

    def __init__(self, argv, env, stdout_path, stderr_path, interval_s=0.05, keep_samples=False,
                 watch_object=None):
        self.argv = argv
        self.env = env
        self.stdout_path = stdout_path
        self.stderr_path = stderr_path
        self.interval_s = interval_s
        self.keep_samples = keep_samples
        # A shared object whose resident pages the sampler follows (their
        # most at once): the rockpool object in a statistics run.
        self.watch_object = watch_object
        self.max_object_kb = None
        self.samples = []  # (seconds since start, VmRSS KiB), only with keep_samples
        self.last_rss_kb = None
        self.max_sampled_kb = None
        self.sample_count = 0
        self.pid = None
        self.exit_code = None
        self.reaped = False
        self._stop = threading.Event()
        self._thread = None
        self._t0 = None

    def start(self):
        become_subreaper()
        for k in self.env:
            if not k or "=" in k:
                raise ValueError(f"bad environment variable name {k!r}")
        assignments = [f"{k}={v}" for k, v in self.env.items()]
        self._t0 = time.monotonic()
        launcher = subprocess.Popen(
            ["/bin/sh", "-c", _LAUNCH, "felt_launch", *assignments, *self.argv],
            env={"FELT_OUT": self.stdout_path, "FELT_ERR": self.stderr_path},
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        with launcher.stdin:  # the gate: closed, whatever happens, once sh is reaped
            printed = launcher.stdout.read().decode(errors="replace").strip()
            launcher.stdout.close()
            launcher.wait()
        pid = printed.rsplit("\n", 1)[-1]
        if launcher.returncode != 0 or not pid.isdigit():
            raise OSError(f"cannot start {self.argv[0]}: {printed}")
        self.pid = int(pid)
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        pid, name = self.pid, comm_of(self.argv[0])
        while True:
            kb = read_vmrss_kb(pid, name)
            if kb is not None:
                t = time.monotonic() - self._t0
                self.last_rss_kb = kb
                self.max_sampled_kb = kb if self.max_sampled_kb is None else max(
                    self.max_sampled_kb, kb)
                self.sample_count += 1
                if self.keep_samples:
                    self.samples.append((round(t, 3), kb))
                if self.watch_object:
                    obj = read_mapped_rss_kb(pid, self.watch_object)
                    if obj is not None:
                        self.max_object_kb = max(obj, self.max_object_kb or 0)
            if self._stop.wait(self.interval_s):
                return

    def wait(self):
        """Waits for the exit; returns the run's figures (see result())."""
        pid = self.pid
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        wall = time.monotonic() - self._t0
        self._stop.set()
        self._thread.join()
        _, status, ru = os.wait4(pid, 0)
        self.reaped = True
        self.exit_code = os.waitstatus_to_exitcode(status)
        return self.result(wall, ru)

    def result(self, wall, ru):
        r = {
            "exit_code": self.exit_code,
            "wall_s": wall,
            "user_s": ru.ru_utime,
            "sys_s": ru.ru_stime,
            "cpu_s": ru.ru_utime + ru.ru_stime,
            "minflt": ru.ru_minflt,
            "majflt": ru.ru_majflt,
            "maxrss_kb": ru.ru_maxrss,  # Linux: KiB
            "rss_exit_kb": self.last_rss_kb,
            "rss_samples": self.sample_count,
            "rss_max_sampled_kb": self.max_sampled_kb,
        }
        if self.keep_samples:
            r["samples"] = self.samples
        if self.watch_object:
            r["object_rss_kb"] = self.max_object_kb
        return r

    def kill(self):
        """Ends the child (only this one, by its PID) and reaps it, if still ours."""
        if self.pid is None or self.reaped:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._stop.set()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        self.reaped = True
        self.exit_code = -signal.SIGKILL


def run(argv, env, stdout_path, stderr_path, interval_s=0.05, watch_object=None):
    """Runs one child to its end; kills it if we are interrupted meanwhile."""
    child = Child(argv, env, stdout_path, stderr_path, interval_s,
                  watch_object=watch_object).start()
    try:
        return child.wait()
    finally:
        child.kill()
