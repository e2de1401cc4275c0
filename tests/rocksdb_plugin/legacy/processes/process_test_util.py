"""Helpers of the process matrix ("safe in every process"): run a program with and without
librockpool_interpose.so, read the per-codec state from the stats file, and
check things one by one (every failed check is reported, not only the first).

The stats-file tokens (rocksdb_plugin/legacy/environment.cc writes the line
rocksdb_plugin/report.cc formats): the last line starting with
`rockpool report:` carries, per codec,

    zstd=<state> zlib=<state>        state: pooled | forwarded | unused
    zstd_forwarded="<reason>"        only for a forwarded codec; names the
    zlib_forwarded="<reason>"        object that made rockpool stand down

`codec_states()` is the only place that knows this format: adjust it (and
only it) if the tokens change. Also a command line, for the stage scripts
(tests/private_codecs/run.sh):

    python3 process_test_util.py codec-states <stats file>
      -> prints "zstd <state> <reason>" and "zlib <state> <reason>" lines
         (state "missing" when the token is absent, reason "-" when none)
"""

import os
import re
import subprocess
import sys
import tempfile

# Pooling on, as CI's stages run it (tests/stage_lib.sh STAGE_POOL_OPTIONS).
POOL_OPTIONS = "max_idle_per_key=8"
CODECS = ("zstd", "zlib")
STATES = ("pooled", "forwarded", "unused")


def report_line(path):
    """The last `rockpool report:` line of a stats file, or None."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [l.rstrip("\n") for l in f if l.startswith("rockpool report:")]
    except OSError:
        return None
    return lines[-1] if lines else None


def codec_states(line):
    """{codec: (state, reason)} from a report line; state None when the
    token is missing, reason None when there is none."""
    out = {}
    for codec in CODECS:
        m = re.search(r"(?:^| )" + codec + r"=(" + "|".join(STATES) + r")(?= |$)", line or "")
        r = re.search(r"(?:^| )" + codec + r'_forwarded="([^"]*)"', line or "")
        out[codec] = (m.group(1) if m else None, r.group(1) if r else None)
    return out


def clean_env(**extra):
    """The environment of a child: ours without anything of rockpool's, plus
    `extra` (None values are left out)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ROCKPOOL_") and k not in ("LD_PRELOAD", "LD_DEBUG")}
    env.update({k: v for k, v in extra.items() if v is not None})
    return env


class Run:
    def __init__(self, argv, returncode, stdout, stderr, stats_line):
        self.argv = argv
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.stats_line = stats_line

    def describe(self):
        rc = self.returncode
        what = "signal %d" % -rc if rc < 0 else "exit %d" % rc
        err = self.stderr.decode(errors="replace")
        cmd = " ".join(a if len(a) <= 80 else a[:60].split("\n")[0] + " ..." for a in self.argv)
        return "%s: %s%s" % (cmd, what,
                             "; stderr: " + err[-600:] if err else "")


def run(argv, interpose=None, options=POOL_OPTIONS, stdin=None, timeout=600, env_extra=None):
    """Runs argv; with `interpose` (the object's path): LD_PRELOAD'ed with
    ROCKPOOL_OPTIONS=options and ROCKPOOL_STATS pointing to a fresh file,
    whose report line comes back in Run.stats_line."""
    extra = dict(env_extra or {})
    stats = None
    tmp = None
    if interpose is not None:
        tmp = tempfile.mkdtemp(prefix="rockpool-processes-",
                               dir=os.environ.get("TEST_TMPDIR"))
        stats = os.path.join(tmp, "stats.txt")
        extra.update(LD_PRELOAD=interpose, ROCKPOOL_OPTIONS=options, ROCKPOOL_STATS=stats,
                     ROCKPOOL_STATS_SECONDS="0")
    p = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=clean_env(**extra), timeout=timeout)
    line = report_line(stats) if stats else None
    return Run(argv, p.returncode, p.stdout, p.stderr, line)


def asan_build(argv):
    """True if the test was started with --asan (BUILD files pass it under
    --config=asan: an ASan-built interposer cannot be preloaded into
    uninstrumented programs)."""
    return "--asan" in argv


class Checks:
    """Named checks; every one is printed; finish() exits 1 if any failed."""

    def __init__(self, name):
        self.name = name
        self.failed = []
        self.passed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print("PASS %s" % what)
        else:
            self.failed.append(what)
            print("FAIL %s%s" % (what, ("\n     " + detail.replace("\n", "\n     ")) if detail else ""))
        sys.stdout.flush()
        return ok

    def same_output(self, stock, pooled, what):
        """pooled exited 0 and its stdout equals the stock run's."""
        self.check(stock.returncode == 0, what + ": runs without the object", stock.describe())
        self.check(pooled.returncode == 0, what + ": no crash with the object (exit 0)",
                   pooled.describe())
        self.check(pooled.stdout == stock.stdout and stock.returncode == 0,
                   what + ": output identical to the run without the object",
                   "without: %r\nwith:    %r" % (stock.stdout[:300], pooled.stdout[:300]))

    def codec_state(self, run, codec, states, reason_contains=None, what=""):
        """The stats line says `codec=<one of states>` (and, if given, its
        `<codec>_forwarded` reason contains every string of reason_contains)."""
        state, reason = codec_states(run.stats_line)[codec]
        label = "%s: stats say %s=%s" % (what, codec, "|".join(states))
        ok = state in states
        if ok and reason_contains:
            ok = reason is not None and all(s in reason for s in reason_contains)
            label += ' with %s_forwarded naming %s' % (codec, ", ".join(reason_contains))
        self.check(ok, label, "stats line: %s" % run.stats_line)

    def quiet(self, run, what):
        self.check(run.stderr == b"", what + ": nothing on stderr (ROCKPOOL_VERBOSE unset)",
                   "stderr: %r" % run.stderr[:600])

    def finish(self):
        print("%s: %d passed, %d failed" % (self.name, self.passed, len(self.failed)))
        for f in self.failed:
            print("  failed: %s" % f)
        sys.exit(1 if self.failed else 0)


def main(argv):
    if len(argv) == 3 and argv[1] == "codec-states":
        for codec, (state, reason) in codec_states(report_line(argv[2])).items():
            print("%s %s %s" % (codec, state or "missing", reason if reason is not None else "-"))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
