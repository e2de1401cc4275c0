"""What every felt-cost run shares (bench/felt_cost.py, bench/felt_soak.py):
the db_bench face, the temporary directory, the environment children start
from, and the steps around one db_bench process: its command line, the
unmeasured fills, the native face's OPTIONS files, and checking and parsing
what it printed.
"""

import glob
import os
import re
import shutil
import sys

from bench import felt_dbbench as dbb
from bench import felt_run

SIDES = ("stock", "pooled")


class RunFailed(Exception):
    """A db_bench run failed; the message is one line."""


def last_line(path):
    """The last line of a child's stderr worth showing (not db_bench's progress)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    lines = [s.strip() for s in re.split(r"[\r\n]", text) if s.strip()]
    lines = [s for s in lines if not s.startswith("... finished")]
    return lines[-1] if lines else ""


class Session:
    def __init__(self, face, tmp, scale, sample_s, base_env=None, log=sys.stderr):
        self.face = face
        self.tmp = tmp
        self.scale = scale
        self.sample_s = sample_s
        self.base_env = dict(os.environ if base_env is None else base_env)
        self.log = log
        self.version = None  # RocksDB's, from db_bench's header

    def say(self, text):
        print(text, file=self.log, flush=True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def env(self, allocator, side):
        return dbb.side_env(self.base_env, allocator, side, self.face)

    def stats_file(self, side):
        """Where a pooled run writes its report line (removed first: an object
        leaves an existing file alone when it leased nothing); None for stock."""
        if side != "pooled":
            return None
        path = self.path("rockpool_stats")
        if os.path.exists(path):
            os.unlink(path)
        return path

    def statistics_env(self, allocator, side):
        """(environment, report file or None) of a run whose pool statistics
        are read (pooled): the matrix's own statistics run, kept out of the
        measured runs, and the soak's sides. A face configured from the
        environment writes its statistics at exit only (no period thread);
        the native face writes its close report."""
        env, stats = self.env(allocator, side), self.stats_file(side)
        if stats:
            env[self.face.stats_variable] = stats
            if self.face.name != "native":
                env["ROCKPOOL_STATS_SECONDS"] = "0"
        return env, stats

    def argv(self, run_args, db, options=None):
        argv = [self.face.db_bench] + list(run_args) + [f"--db={db}"]
        if options:
            argv.append(f"--options_file={options}")
        return argv

    def plain(self, run_args, db, what):
        """An unmeasured db_bench run, stock under glibc (fills, OPTIONS templates)."""
        out, err = self.path("plain.out"), self.path("plain.err")
        res = felt_run.run(self.argv(run_args, db), self.env("glibc", "stock"), out, err, 1.0)
        if res["exit_code"] != 0:
            raise RunFailed(f"db_bench {what} exited {res['exit_code']}: {last_line(err)}")

    def fill(self, run_args, db):
        shutil.rmtree(db, ignore_errors=True)
        self.say(f"   filling {os.path.basename(db)} (stock, glibc; not measured)")
        self.plain(run_args, db, "fill")

    def options_files(self, tag, run_args):
        """The native face: {side: OPTIONS file}: db_bench's own options for the
        workload, and the same with compression_manager=rockpool. None for the
        other faces (they need no OPTIONS file)."""
        if self.face.name != "native":
            return None
        db = self.path(f"options_{tag}")
        shutil.rmtree(db, ignore_errors=True)
        self.plain(dbb.options_template_args(run_args), db, "(OPTIONS template)")
        found = sorted(glob.glob(os.path.join(db, "OPTIONS-*")),
                       key=lambda p: int(re.sub(r"\D", "", os.path.basename(p)) or 0))
        if not found:
            raise RunFailed(f"db_bench wrote no OPTIONS file in {db}")
        with open(found[-1], encoding="utf-8") as f:
            text = f.read()
        files = {}
        for side in SIDES:
            files[side] = self.path(f"OPTIONS_{tag}_{side}")
            with open(files[side], "w", encoding="utf-8") as f:
                f.write(text if side == "stock" else dbb.with_native_manager(text))
        shutil.rmtree(db, ignore_errors=True)
        return files

    def finish(self, res, out, err, what, main_phase):
        """Checks a measured run and adds db_bench's per-phase figures to it."""
        if res["exit_code"] != 0:
            raise RunFailed(f"db_bench {what} exited {res['exit_code']}: {last_line(err)}")
        with open(out, encoding="utf-8", errors="replace") as f, \
                open(err, encoding="utf-8", errors="replace") as e:
            parsed = dbb.parse_output(f.read(), e.read())
        if main_phase not in parsed["phases"]:
            raise RunFailed(f"db_bench {what}: no '{main_phase} : ... ops/sec' line in its "
                            f"output ({last_line(err) or 'nothing on stderr'})")
        self.version = self.version or parsed["version"]
        res["phases"] = parsed["phases"]
        return res
