"""Hostile arguments to both tools: every case ends (no hang), without a
signal or an uncaught exception, with exit 2 and exactly one stderr line
naming the input, or (where the answer is still meaningful, as "the
interposer" for a file that is not a 64-bit ELF program) with an answer and
exit 0. Each case's line is printed, so the log lists every message.

  rockpool check PATH, rockpool stats PATH, rockpool run -- PATH,
  sst_replay PATH, sst_replay --allocator=PATH
over: a directory, a FIFO, /dev/zero, a truncated ELF, a 32-bit ELF, a
script with a shebang line, a symlink loop, an unreadable file and an
unreadable directory (as nobody: root reads everything), and DB
directories whose OPTIONS file is a FIFO, a directory, binary garbage or
options RocksDB rejects.

Usage: hostile_inputs_test.py <rockpool> <sst_replay> <object dir>
"""

import os
import shutil
import stat
import subprocess
import sys
import tempfile

from tests.rocksdb_plugin.legacy.processes import process_test_util as u

NOBODY = 65534
TIMEOUT = 60
DB_BENCH = "/usr/bin/db_bench"


def as_nobody():
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def make_inputs(top):
    """name -> path of each hostile input under `top`."""
    p = {}

    def at(name):
        # No spaces: --allocator=PATH refuses a path LD_PRELOAD cannot carry.
        p[name] = os.path.join(top, name.replace(" ", "_").replace("-", "_"))
        return p[name]

    os.mkdir(at("a directory"))
    os.mkfifo(at("a FIFO"))
    p["/dev/zero"] = "/dev/zero"
    with open("/usr/bin/db_bench", "rb") as f:
        head = f.read(40)
    with open(at("a truncated ELF"), "wb") as f:
        f.write(head)
    with open(at("a 32-bit ELF"), "wb") as f:
        f.write(b"\x7fELF\x01\x01\x01" + b"\x00" * 200)
    with open(at("a script"), "w") as f:
        f.write("#!/bin/sh\necho not rocksdb\n")
    os.chmod(p["a script"], 0o755)
    os.symlink("loop_b", at("a symlink loop"))
    os.symlink(os.path.basename(p["a symlink loop"]), os.path.join(top, "loop_b"))
    with open(at("an unreadable file"), "wb") as f:
        f.write(head)
    os.chmod(p["an unreadable file"], 0o000)
    os.mkdir(at("an unreadable directory"), 0o000)
    return p


def make_db(top, name, options):
    """A RocksDB directory with an SST and a blob file (Debian's db_bench),
    its OPTIONS file replaced by options(path)."""
    db = os.path.join(top, name)
    subprocess.run([DB_BENCH, "--benchmarks=fillrandom,compact", "--num=1000", "--db=" + db,
                    "--enable_blob_files=1", "--min_blob_size=0", "--compression_type=zlib",
                    "--blob_compression_type=zlib"],
                   env=u.clean_env(), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    for f in os.listdir(db):
        if f.startswith("OPTIONS-"):
            path = os.path.join(db, f)
            os.unlink(path)
            options(path)
    return db


def garbage(path):
    with open(path, "wb") as f:
        f.write(b"\x00\xff\xfe[CFOptions \"default\"\n\x00compression=\n" * 50)


def rejected(path):
    with open(path, "w") as f:
        f.write("[Version]\n  rocksdb_version=7.8.3\n  options_file_version=1.1\n"
                "[DBOptions]\n  max_open_files=-99999999999999999999\n"
                "[CFOptions \"default\"]\n  compression=kNoSuchCompression\n")


def run(argv, env, nobody):
    try:
        return subprocess.run(argv, env=env, capture_output=True, timeout=TIMEOUT,
                              preexec_fn=as_nobody if nobody else None, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None


def check_case(c, what, argv, env, nobody=False, answers_ok=False, names=None):
    p = run(argv, env, nobody)
    if not c.check(p is not None, what + ": ends within %d s" % TIMEOUT):
        return
    err = p.stderr.decode(errors="replace")
    # Compaction mode announces its disk use before it copies: not an error.
    lines = [l for l in err.splitlines() if "compaction mode copies" not in l]
    c.check(p.returncode >= 0, what + ": no signal", "exit %d" % p.returncode)
    c.check("terminate called" not in err and "what():" not in err,
            what + ": no uncaught exception", err[-300:])
    if p.returncode == 0 and answers_ok:
        print("     answer: %s" % p.stdout.decode(errors="replace").splitlines()[0])
        c.check(lines == [], what + ": an answer, nothing on stderr", err)
        return
    c.check(p.returncode == 2, what + ": exit 2", "exit %d; stderr %r" % (p.returncode, err))
    c.check(len(lines) == 1, what + ": exactly one stderr line", "stderr: %r" % err)
    if lines:
        print("     message: %s" % lines[0])
        if names:
            c.check(names in lines[0], what + ": the line names the input", lines[0])


def main(argv):
    if os.geteuid() != 0:
        print("hostile_inputs_test: skipped: needs root (unreadable cases run as nobody)")
        return 0
    rockpool, sst_replay, objects = (os.path.abspath(a) for a in argv[1:4])
    top = tempfile.mkdtemp(prefix="rockpool-hostile-", dir="/tmp")
    try:
        os.chmod(top, 0o755)
        # Copies nobody can run (the runfiles are under root's home).
        bin_dir = os.path.join(top, "bin")
        os.mkdir(bin_dir, 0o755)
        tools = {}
        for t in (rockpool, sst_replay):
            tools[os.path.basename(t)] = shutil.copy(t, bin_dir)
            os.chmod(tools[os.path.basename(t)], 0o755)
        lib = os.path.join(top, "lib")
        shutil.copytree(objects, lib, ignore=lambda d, names: [
            n for n in names if not n.startswith("librockpool_") or not n.endswith(".so")])
        os.chmod(lib, 0o755)
        scratch = os.path.join(top, "scratch")  # like /tmp, for nobody's runs too
        os.mkdir(scratch)
        os.chmod(scratch, 0o1777)
        env = u.clean_env(ROCKPOOL_LIBDIR=lib, TMPDIR=scratch)
        os.mkdir(os.path.join(top, "in"), 0o755)
        inputs = make_inputs(os.path.join(top, "in"))
        c = u.Checks("hostile_inputs_test")
        rp, sr = tools["rockpool"], tools["sst_replay"]
        for name, path in inputs.items():
            nobody = name.startswith("an unreadable")
            meaningful = name in ("a 32-bit ELF", "a script")
            check_case(c, "rockpool check <%s>" % name, [rp, "check", path], env, nobody,
                       answers_ok=meaningful, names=path)
            check_case(c, "rockpool stats <%s>" % name, [rp, "stats", path], env, nobody,
                       names=path)
            if not meaningful:
                check_case(c, "rockpool run -- <%s>" % name, [rp, "run", "--", path], env,
                           nobody, names=path)
            check_case(c, "sst_replay <%s>" % name, [sr, "--repeat=1", path], env, nobody,
                       names=path)
            check_case(c, "sst_replay --allocator=<%s>" % name,
                       [sr, "--repeat=1", "--allocator=" + path, inputs["a truncated ELF"]],
                       env, nobody, names=path)
        dbs = os.path.join(top, "dbs")
        os.mkdir(dbs, 0o755)
        for name, options in (("a FIFO", os.mkfifo), ("a directory", os.mkdir),
                              ("binary garbage", garbage), ("options RocksDB rejects", rejected)):
            db = make_db(dbs, name.replace(" ", "_"), options)
            check_case(c, "sst_replay <DB whose OPTIONS file is %s>" % name,
                       [sr, "--repeat=1", "--rocksdb_version=7.8", db], env, names=db)
        c.finish()
    finally:
        for root, dirs, _ in os.walk(top):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv)
