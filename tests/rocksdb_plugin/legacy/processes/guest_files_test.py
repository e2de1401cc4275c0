"""The guest's files and environment, for both legacy objects, as root.

Files: another user (nobody) plants a symbolic link in a world-writable
sticky directory D where root's process will write its statistics
(ROCKPOOL_STATS=D/rp.stats), pointing at a root-owned file of mode 600
that nobody may write. Root then runs Debian's db_bench (fillrandom with
zlib) with the object preloaded. Asserted, per object:
  - link at D/rp.stats.tmp (the temporary name older objects used): the
    victim is unchanged, the link untouched, and the statistics land at
    D/rp.stats, a regular file of mode 0600;
  - link at D/rp.stats itself, a dangling link, a FIFO, a directory: the
    run ends (no hang), the victim and the thing at the path are unchanged,
    no file appears anywhere in D or beside the victim, and with
    ROCKPOOL_VERBOSE=1 one stderr line says why.

Environment: secure_host (dlopen of the object, then exit) made setuid root
and run by nobody is an AT_SECURE process. With ROCKPOOL_OPTIONS,
ROCKPOOL_STATS and ROCKPOOL_VERBOSE=1 set, it must write no statistics file
and print nothing; the same binary run by root without the setuid bit (not
AT_SECURE, the control) writes the file and speaks.

Usage: guest_files_test.py <preload.so> <interpose.so> <secure_host> [--asan]
"""

import os
import shutil
import stat
import subprocess
import sys
import tempfile

from tests.rocksdb_plugin.legacy.processes import process_test_util as u

NOBODY = 65534
DB_BENCH = "/usr/bin/db_bench"
VICTIM_TEXT = b"root's own file: must never change\n"


def as_nobody():
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def private_copy(src, directory, mode):
    """src copied into `directory` (readable by nobody) with `mode`."""
    dst = os.path.join(directory, os.path.basename(src))
    shutil.copyfile(src, dst)
    os.chmod(dst, mode)
    return dst


class Scene:
    """A world-writable sticky D (like /tmp) and a root-only victim file."""

    def __init__(self):
        self.top = tempfile.mkdtemp(prefix="rockpool-guest-", dir="/tmp")
        os.chmod(self.top, 0o755)
        self.d = os.path.join(self.top, "shared")
        os.mkdir(self.d)
        os.chmod(self.d, 0o1777)
        self.vault = os.path.join(self.top, "vault")
        os.mkdir(self.vault, 0o700)
        self.victim = os.path.join(self.vault, "victim.txt")
        with open(self.victim, "wb") as f:
            f.write(VICTIM_TEXT)
        os.chmod(self.victim, 0o600)
        self.stats = os.path.join(self.d, "rp.stats")

    def plant(self, argv):
        """Runs argv as nobody (the planting user)."""
        subprocess.run(argv, preexec_fn=as_nobody, check=True)

    def listing(self):
        return sorted(os.listdir(self.d)), sorted(os.listdir(self.vault))

    def close(self):
        shutil.rmtree(self.top, ignore_errors=True)


def db_bench(obj, db, stats, verbose=False):
    env = u.clean_env(LD_PRELOAD=obj, ROCKPOOL_OPTIONS=u.POOL_OPTIONS, ROCKPOOL_STATS=stats,
                      ROCKPOOL_STATS_SECONDS="0", ROCKPOOL_VERBOSE="1" if verbose else None)
    argv = [DB_BENCH, "--benchmarks=fillrandom", "--num=3000", "--compression_type=zlib",
            "--db=" + db, "--disable_wal=1", "--statistics=0"]
    try:
        p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120)
    except subprocess.TimeoutExpired:
        return None
    return p


def rockpool_lines(p):
    return [l for l in p.stderr.decode(errors="replace").splitlines() if "rockpool" in l]


def check_planted_tmp_link(c, name, obj):
    """The older objects' attack: a link at <path>.tmp."""
    s = Scene()
    try:
        s.plant(["ln", "-s", s.victim, s.stats + ".tmp"])
        p = db_bench(obj, os.path.join(s.top, "db"), s.stats)
        what = "%s: link planted at rp.stats.tmp" % name
        c.check(p is not None and p.returncode == 0, what + ": db_bench runs",
                p.stderr.decode(errors="replace")[-400:] if p else "timed out")
        with open(s.victim, "rb") as f:
            c.check(f.read() == VICTIM_TEXT, what + ": the victim is unchanged")
        c.check(os.path.islink(s.stats + ".tmp") and os.readlink(s.stats + ".tmp") == s.victim,
                what + ": the planted link is untouched")
        st = os.lstat(s.stats) if os.path.lexists(s.stats) else None
        c.check(st is not None and stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600,
                what + ": the statistics land at rp.stats, a regular file of mode 0600",
                "lstat: %r" % (st,))
        line = u.report_line(s.stats) if st is not None and stat.S_ISREG(st.st_mode) else None
        c.check(line is not None and "zlib=pooled" in line, what + ": it is a report line",
                "line: %r" % line)
        c.check(s.listing() == (["rp.stats", "rp.stats.tmp"], ["victim.txt"]),
                what + ": nothing else is written in D or beside the victim",
                "listing: %r" % (s.listing(),))
    finally:
        s.close()


def check_refused(c, name, obj, kind, make, still_there):
    """Something other than the process's own file stands at the path."""
    s = Scene()
    try:
        make(s)
        before = s.listing()
        p = db_bench(obj, os.path.join(s.top, "db"), s.stats, verbose=True)
        what = "%s: %s at rp.stats" % (name, kind)
        c.check(p is not None, what + ": the run ends (no hang)")
        if p is None:
            return
        c.check(p.returncode == 0, what + ": db_bench exits 0", p.stderr.decode()[-400:])
        with open(s.victim, "rb") as f:
            c.check(f.read() == VICTIM_TEXT, what + ": the victim is unchanged")
        c.check(still_there(s), what + ": the thing at the path is unchanged")
        c.check(s.listing() == before, what + ": no file appears in D or beside the victim",
                "before %r, after %r" % (before, s.listing()))
        refusals = [l for l in rockpool_lines(p) if "ROCKPOOL_STATS" in l]
        c.check(len(refusals) == 1 and "refused" in refusals[0] and s.stats in refusals[0],
                what + ": one stderr line with ROCKPOOL_VERBOSE=1 says it was refused",
                "rockpool lines: %r" % rockpool_lines(p))
    finally:
        s.close()


def link_to_victim(s):
    s.plant(["ln", "-s", s.victim, s.stats])


def dangling_link(s):
    s.plant(["ln", "-s", os.path.join(s.vault, "created_by_rockpool"), s.stats])


def fifo(s):
    s.plant(["mkfifo", "-m", "0666", s.stats])


def directory(s):
    s.plant(["mkdir", "-m", "0777", s.stats])


def check_secure(c, name, obj, host):
    top = tempfile.mkdtemp(prefix="rockpool-secure-", dir="/tmp")
    try:
        os.chmod(top, 0o755)
        exe = private_copy(host, top, 0o755)
        obj_copy = private_copy(obj, top, 0o755)
        out = os.path.join(top, "out")  # only root may write here
        os.mkdir(out, 0o755)
        stats = os.path.join(out, "secure.stats")
        env = u.clean_env(ROCKPOOL_OPTIONS=u.POOL_OPTIONS, ROCKPOOL_STATS=stats,
                          ROCKPOOL_STATS_SECONDS="0", ROCKPOOL_VERBOSE="1")

        # The control: root, no setuid bit.
        p = subprocess.run([exe, obj_copy], env=env, capture_output=True, timeout=60)
        what = "%s: not privileged (control)" % name
        c.check(p.returncode == 0 and b"AT_SECURE=0" in p.stdout, what + ": loads",
                "%r %r" % (p.stdout, p.stderr))
        c.check(os.path.exists(stats), what + ": writes ROCKPOOL_STATS")
        c.check(len(rockpool_lines(p)) >= 1, what + ": ROCKPOOL_VERBOSE=1 speaks",
                "stderr: %r" % p.stderr)
        if os.path.exists(stats):
            os.unlink(stats)

        # Setuid root, run by nobody: AT_SECURE.
        os.chown(exe, 0, 0)
        os.chmod(exe, 0o4755)
        p = subprocess.run([exe, obj_copy], env=env, capture_output=True, timeout=60,
                           preexec_fn=as_nobody)
        what = "%s: setuid root run by nobody" % name
        c.check(p.returncode == 0 and b"AT_SECURE=1" in p.stdout,
                what + ": loads in an AT_SECURE process", "%r %r" % (p.stdout, p.stderr))
        c.check(not os.path.lexists(stats) and os.listdir(out) == [],
                what + ": writes no statistics file", "out: %r" % os.listdir(out))
        c.check(rockpool_lines(p) == [], what + ": prints nothing",
                "stderr: %r" % p.stderr)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def main(argv):
    if u.asan_build(argv):
        print("guest_files_test: skipped under ASan (uninstrumented db_bench)")
        return 0
    if os.geteuid() != 0:
        print("guest_files_test: skipped: needs root (another user plants links; setuid)")
        return 0
    preload, interpose, host = (os.path.abspath(a) for a in argv[1:4])
    c = u.Checks("guest_files_test")
    for name, obj in (("preload object", preload), ("interposer", interpose)):
        check_planted_tmp_link(c, name, obj)
        check_refused(c, name, obj, "a link to the victim", link_to_victim,
                      lambda s: os.path.islink(s.stats) and os.readlink(s.stats) == s.victim)
        check_refused(c, name, obj, "a dangling link", dangling_link,
                      lambda s: os.path.islink(s.stats) and not os.path.exists(s.stats))
        check_refused(c, name, obj, "a FIFO", fifo,
                      lambda s: stat.S_ISFIFO(os.lstat(s.stats).st_mode))
        check_refused(c, name, obj, "a directory", directory,
                      lambda s: os.path.isdir(s.stats) and os.listdir(s.stats) == [])
        check_secure(c, name, obj, host)
    c.finish()


if __name__ == "__main__":
    main(sys.argv)
