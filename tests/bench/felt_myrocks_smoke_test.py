"""felt_cost --myrocks end to end: a real MariaDB MyRocks server per side
(stock, then pooled with librockpool_interpose.so), real sysbench, one pair
of one codec under glibc for a few seconds per workload; the tables and the
JSON it writes.

Asserts: both workloads measured on both sides (transactions, p95 <= p99,
the server's CPU and peak RSS over the workload, the peak reset before it),
the pooled server's pool leased contexts while oltp_write_only was measured
(compression ran through rockpool then) and the stock one has no pool, the
MariaDB and RocksDB versions found, and the Markdown table has both rows.

Skips (exit 0, saying SKIPPED and why) under ASan (an ASan interposer cannot
be preloaded into mariadbd) and where MariaDB's MyRocks or sysbench is not
installed (bash tools/setup.sh --stage=myrocks).

Usage: felt_myrocks_smoke_test.py <librockpool_interpose.so> [--asan]
"""

import json
import os
import shutil
import sys
import tempfile

from bench import felt_cost

NEEDED = ("/usr/sbin/mariadbd", "/usr/bin/mariadb-install-db", "/usr/bin/sysbench",
          "/usr/lib/mysql/plugin/ha_rocksdb.so")


def check(ok, what):
    print(("PASS" if ok else "FAIL") + ": " + what, flush=True)
    return ok


def main(argv):
    if "--asan" in argv[2:]:
        print("SKIPPED: built with ASan (an ASan interposer cannot be preloaded into mariadbd)")
        return 0
    missing = [p for p in NEEDED if not os.path.exists(p)]
    if missing:
        print(f"SKIPPED: {', '.join(missing)} not installed (mariadb-server "
              "mariadb-plugin-rocksdb sysbench: bash tools/setup.sh --stage=myrocks)")
        return 0
    obj = os.path.abspath(argv[1])
    # Not TEST_TMPDIR: the server's socket path must stay under 108 bytes.
    tmp = tempfile.mkdtemp(prefix="felt_myrocks_smoke_", dir="/tmp")
    try:
        md, js = os.path.join(tmp, "m.md"), os.path.join(tmp, "m.json")
        rc = felt_cost.main(["--myrocks", "--quick", f"--preload={obj}",
                             f"--tmpdir={tmp}", f"--md={md}", f"--json={js}"])
        with open(js, encoding="utf-8") as f:
            doc = json.load(f)
        with open(md, encoding="utf-8") as f:
            text = f.read()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ok = check(rc == 0, "felt_cost --myrocks --quick exited 0")
    cells = {c["workload"]: c for c in doc.get("myrocks", [])}
    ok &= check(sorted(cells) == ["oltp_read_write", "oltp_write_only"],
                f"one cell per workload ({sorted(cells)})")
    for name, cell in cells.items():
        sides = {r["side"]: r for r in cell["runs"]}
        ok &= check(sorted(sides) == ["pooled", "stock"] and len(cell["runs"]) == 2,
                    f"{name}: one stock and one pooled run")
        for side, r in sides.items():
            ok &= check(r["transactions"] > 0 and r["tps"] > 0 and
                        0 < r["p95_us"] <= r["p99_us"] and r["cpu_s"] > 0 and
                        r["hwm_kb"] > 10 * 1024 and r["hwm_reset"],
                        f"{name} {side}: {r['transactions']} transactions, {r['tps']} tps, "
                        f"p95 {r['p95_us']} us, p99 {r['p99_us']} us, CPU {r['cpu_s']:.2f} s, "
                        f"peak RSS {r['hwm_kb']} KiB (reset: {r['hwm_reset']})")
        ok &= check("pool_leases" not in sides["stock"], f"{name} stock: no pool")
        ok &= check(cell["summary"]["verdict"] != "", f"{name}: a verdict "
                    f"({cell['summary']['verdict']})")
    leases = cells["oltp_write_only"]["runs"]
    leases = next(r["pool_leases"] for r in leases if r["side"] == "pooled")
    ok &= check(bool(leases), f"pooled: {leases} pool leases while oltp_write_only was measured")
    ctx = doc["context"]
    ok &= check("MariaDB" in (ctx.get("mariadb") or ""), f"MariaDB version {ctx.get('mariadb')}")
    ok &= check(bool(ctx.get("rocksdb")), f"MyRocks' RocksDB {ctx.get('rocksdb')}")
    ok &= check(all(f"| {w} | lz4 | glibc |" in text for w in cells),
                "the Markdown table has both rows")
    print("felt_myrocks_smoke_test: " + ("PASSED" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
