#!/usr/bin/env bash
# The Debian packages end to end (CI stage `package`, tests/RELIABILITY.md;
# on Debian 12, and inside tools/debian13.sh's root on Debian 13): builds
# rockpool_<version>+deb<N>_amd64.deb and rockpool-rocksdb<X.Y>_... (the
# preload object) with tools/package.sh (lintian: no errors; rockpool
# itself depends on no librocksdb), installs both for real (`apt-get install
# ./...deb`; an EXIT trap purges them again whatever happens), runs Debian's db_bench through the installed `rockpool
# run` (zlib fill + compact: the stats file shows leases and reuse, the LOG
# shows rockpool), reads the stats with `rockpool stats` (and a corrupt file:
# exit 2, one line), asks `rockpool check` about db_bench, checks both
# --version lines and that both man pages render, then removes the package
# and checks that nothing of it is left.
# Prints `package: <check> PASS|FAIL ...` per check and
# `package: N passed, M failed` last; exits non-zero on any failure.
#
# Needs root (apt-get install) and `bash tools/setup.sh --stage=package`; refuses to
# run when a rockpool package is already installed (it would replace it).
# With MariaDB's MyRocks installed (the myrocks stage's packages), also
# `rockpool check mariadbd` (the interposer) and a zlib MyRocks table written,
# flushed and compacted by a mariadbd started with `rockpool run -- mariadbd`
# and one started by `mariadbd-safe --malloc-lib=<interposer>` (the two ways
# of packaging/examples/mariadb-rockpool.conf but its systemd drop-in), each
# pooled; skipped (and said so) without them.
# Options:
#   --keep   keep the work directory (the .deb, the stats files, the DB)
set -uo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SCRIPT_DIR/../.." && pwd)"
source "$REPO/tests/stage_lib.sh"
stage_init package
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
# Nothing of the caller's rockpool settings leaks in.
unset LD_PRELOAD ROCKPOOL_OPTIONS ROCKPOOL_STATS ROCKPOOL_VERBOSE ROCKPOOL_LIBDIR ROCKPOOL_STATS_SECONDS

for a in "$@"; do
  case $a in
    --keep) STAGE_KEEP_ALL=1 ;;
    -h|--help) stage_usage "$0"; exit 0 ;;
    *) stage_usage_error "unknown argument '$a'" ;;
  esac
done

[[ $(id -u) -eq 0 ]] || stage_setup_fail "needs root (apt-get install)"
if dpkg-query -W -f='${Status}' rockpool 2>/dev/null | grep -q 'installed'; then
  stage_setup_fail "a rockpool package is already installed; remove it first (dpkg -r rockpool)"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rockpool-package.XXXXXX")
INSTALLED=0
preload_pkg=rockpool-rocksdb
ours=
# Purges the two packages if (and only if) the installed version is the one
# this stage built: a rockpool another process installed meanwhile (another
# CI run on the same machine) is left alone.
purge_ours() {
  local p
  for p in "$preload_pkg" rockpool; do
    [[ -n $ours && $(dpkg-query -W -f='${Version}' "$p" 2>/dev/null) == "$ours" ]] &&
      dpkg --purge "$p" >/dev/null 2>&1
  done
  return 0
}
cleanup() {
  stage_stop_children
  if ((INSTALLED)); then purge_ours; fi
}
trap cleanup EXIT
# A signal ends the script through exit, so the EXIT trap purges the package.
trap 'exit 130' INT
trap 'exit 143' TERM

LIBDIR=/usr/lib/x86_64-linux-gnu/rockpool
check() { stage_check "$@"; }  # check <ok 0|1> <what> [detail]

# --- build -------------------------------------------------------------------
if ! bash "$REPO/tools/package.sh" --out="$WORK/dist" --lintian >"$WORK/package.log" 2>&1; then
  sed 's/^/  /' "$WORK/package.log" | tail -n 30
  stage_setup_fail "tools/package.sh failed (log: $WORK/package.log)"
fi
version=$(sed -nE 's/^#define ROCKPOOL_VERSION "([^"]+)"$/\1/p' "$REPO/rockpool_version.h")
distro=$(. /etc/os-release && echo "$VERSION_ID")
# The preload package is named after the RocksDB it is built for.
rocks_pkg=$(dpkg-query -W -f='${Package}\n' 'librocksdb[0-9]*' 2>/dev/null | grep -E '^librocksdb[0-9]+\.[0-9]+$' | head -n 1)
preload_pkg=rockpool-${rocks_pkg#lib}
rocks=$(dpkg-query -W -f='${Version}' "$rocks_pkg" 2>/dev/null)
rocks=${rocks#*:}
rocks=${rocks%%-*}
ours=$version+deb$distro
DEB=$WORK/dist/rockpool_${version}+deb${distro}_amd64.deb
PRELOAD_DEB=$WORK/dist/${preload_pkg}_${version}+deb${distro}_amd64.deb
check "$([[ -s $DEB && -s $PRELOAD_DEB ]] && echo 1 || echo 0)" "build" "$(basename "$DEB") $(basename "$PRELOAD_DEB")"
lint=$(sed -n 's/^package: lintian: //p' "$WORK/package.log")
check "$([[ $lint == "0 errors,"* ]] && echo 1 || echo 0)" "lintian" "$lint"

{ dpkg-deb -c "$DEB"; dpkg-deb -c "$PRELOAD_DEB"; } | awk '{print $NF}' | sed 's|^\./|/|' >"$WORK/contents.txt"
missing=()
for f in "$LIBDIR/librockpool_preload.so" "$LIBDIR/librockpool_interpose.so" /usr/bin/rockpool \
         /usr/bin/sst_replay /usr/share/man/man1/rockpool.1.gz /usr/share/man/man1/sst_replay.1.gz \
         /usr/share/doc/rockpool/copyright /usr/share/doc/rockpool/changelog.gz \
         /usr/share/doc/rockpool/examples/mariadb-rockpool.conf; do
  grep -qx "$f" "$WORK/contents.txt" || missing+=("$f")
done
check "$((${#missing[@]} == 0))" "contents" "${missing[*]:-all 9 files}"
# What every host needs comes without RocksDB (a MyRocks host gets no
# librocksdb); the preload object pins the release it is built for.
depends=$(dpkg-deb -f "$DEB" Depends)
check "$([[ -n $depends && $depends != *librocksdb* ]] && echo 1 || echo 0)" "depends rockpool" "$depends"
rocks_next=${rocks%.*}.$((${rocks##*.} + 1))
depends=$(dpkg-deb -f "$PRELOAD_DEB" Depends)
ok=0
[[ $depends == "rockpool (= $version+deb$distro), "*"$rocks_pkg (>= $rocks), $rocks_pkg (<< $rocks_next)" ]] && ok=1
check "$ok" "depends $preload_pkg" "$depends"
dpkg-deb -c "$PRELOAD_DEB" | grep -q 'librockpool_interpose.so' && check 0 "preload package holds only the preload object"

# --- install -------------------------------------------------------------------
# As users do: apt resolves the dependencies (here all installed already).
INSTALLED=1
if ! apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 "$DEB" "$PRELOAD_DEB" \
     >"$WORK/apt-install.log" 2>&1; then
  sed 's/^/  /' "$WORK/apt-install.log"
  stage_setup_fail "apt-get install failed"
fi
check 1 "install" "apt-get install ./$(basename "$DEB") ./$(basename "$PRELOAD_DEB")"

v=$(/usr/bin/rockpool --version 2>&1)
check "$([[ $v == "rockpool $version" ]] && echo 1 || echo 0)" "rockpool --version" "$v"
v=$(/usr/bin/sst_replay --version 2>&1 | head -n 1)
check "$([[ $v == "sst_replay $version" ]] && echo 1 || echo 0)" "sst_replay --version" "$v"

c=$(/usr/bin/rockpool check db_bench 2>&1)
ok=0
[[ $c == "librockpool_preload.so: /usr/bin/db_bench needs librocksdb.so.${rocks%.*}"* &&
   $c == *"object: $LIBDIR/librockpool_preload.so"* ]] && ok=1
check "$ok" "check db_bench" "$(head -n 1 <<<"$c")"

# --- db_bench through the installed rockpool run ---------------------------------
DB=$WORK/db
rm -f "$WORK"/db_bench.*.stats
rc=0
stage_run_logged "$WORK/db_bench.txt" 300 /usr/bin/rockpool run --stats="$WORK/db_bench.%p.stats" -- \
  db_bench --benchmarks=fillrandom,compact --compression_type=zlib --num=20000 --value_size=400 \
  --db="$DB" --threads=1 --disable_wal=1 || rc=$?
check "$((rc == 0))" "db_bench" "exit $rc"
stats=$(ls "$WORK"/db_bench.*.stats 2>/dev/null | head -n 1)
read -r leases created reused lib_bytes in_use < <(stage_rockpool_totals "$stats" /nonexistent)
ok=0
((leases > 0 && reused > 0 && reused > created)) && ok=1
check "$ok" "db_bench pooled" "leases=$leases created=$created reused=$reused lib_bytes=$lib_bytes in_use=$in_use"
ok=0
grep -q 'rockpool active: .*zlib interposed' "$DB/LOG" 2>/dev/null && grep -q 'rockpool report:' "$DB/LOG" && ok=1
check "$ok" "db_bench LOG" "$(grep -o 'rockpool active: .*' "$DB/LOG" 2>/dev/null | head -n 1 | cut -c1-100)"

# --- rockpool stats ---------------------------------------------------------------
out=$(/usr/bin/rockpool stats "$stats" 2>&1)
rc=$?
ok=0
((rc == 0)) && grep -qE "^total \(1 process\) +- +- +$leases +$created +$reused " <<<"$out" && ok=1
check "$ok" "stats" "$(grep '^total' <<<"$out" | tr -s ' ' | cut -c1-100)"
sed 's/^/  /' <<<"$out"
# The document's layout is the writer's: compare it without its whitespace.
out=$(/usr/bin/rockpool stats --json "$stats" 2>&1 | tr -d ' \n')
check "$([[ $out == *"\"total\":{\"leases\":$leases,"* ]] && echo 1 || echo 0)" "stats --json"
head -c 200 "$stats" >"$WORK/corrupt.stats"
/usr/bin/rockpool stats "$stats" "$WORK/corrupt.stats" >"$WORK/corrupt.out" 2>"$WORK/corrupt.err"
rc=$?
ok=0
((rc == 2)) && [[ ! -s $WORK/corrupt.out ]] && (($(wc -l <"$WORK/corrupt.err") == 1)) &&
  grep -q "$WORK/corrupt.stats" "$WORK/corrupt.err" && ok=1
check "$ok" "stats corrupt file" "exit $rc: $(head -n 1 "$WORK/corrupt.err")"

# --- MariaDB MyRocks through the package: rockpool run, mariadbd-safe --malloc-lib ---
# (when the myrocks stage's packages are installed; CI runs that stage first)
MDB=$WORK/mariadb
# mariadb_life <way>: starts mariadbd (way: run = `rockpool run -- mariadbd`,
# safe = `mariadbd-safe --malloc-lib=<interposer>`), writes a zlib table
# through MyRocks, flushes and compacts it, shuts the server down; then
# checks mariadbd's stats file.
mariadb_life() {
  local way=$1 i rc=0 pid='' n='' server
  server=(--no-defaults --datadir="$MDB/data" --socket="$MDB/sock"
    --skip-networking --user=root --plugin-load-add=ha_rocksdb.so --default-storage-engine=rocksdb
    --rocksdb-default-cf-options=compression=kZlibCompression --log-error="$MDB/err.$way.log"
    --pid-file="$MDB/pid.$way")
  rm -rf "$MDB/data" "$MDB/sock"
  cp -a "$MDB/template" "$MDB/data"
  if [[ $way == run ]]; then
    /usr/bin/rockpool run --stats="$MDB/$way.%p.stats" -- mariadbd "${server[@]}" >"$MDB/out.$way" 2>&1 &
  else
    env ROCKPOOL_OPTIONS="max_idle_per_key=8" ROCKPOOL_STATS="$MDB/$way.%p.stats" \
      mariadbd-safe --no-defaults --malloc-lib="$LIBDIR/librockpool_interpose.so" --skip-kill-mysqld \
      --skip-syslog "${server[@]:1}" >"$MDB/out.$way" 2>&1 &
  fi
  STAGE_BG_PID=$!
  for i in $(seq 600); do
    [[ -S $MDB/sock ]] && mariadb-admin --no-defaults -S "$MDB/sock" -uroot ping >/dev/null 2>&1 && break
    kill -0 "$STAGE_BG_PID" 2>/dev/null || break
    sleep 0.1
  done
  pid=$(cat "$MDB/pid.$way" 2>/dev/null)
  n=$(timeout 300 mariadb --no-defaults -S "$MDB/sock" -uroot -N -B -e "
    CREATE DATABASE rp; USE rp;
    CREATE TABLE t (id INT NOT NULL PRIMARY KEY, c VARCHAR(200)) ENGINE=ROCKSDB;
    INSERT INTO t SELECT seq, REPEAT(MD5(seq), 4) FROM seq_1_to_20000;
    SET GLOBAL rocksdb_force_flush_memtable_now = 1; SET GLOBAL rocksdb_compact_cf = 'default';
    SELECT COUNT(*), SUM(LENGTH(c)) FROM t;" 2>>"$MDB/client.log") || rc=$?
  timeout 180 mariadb-admin --no-defaults -S "$MDB/sock" -uroot shutdown >>"$MDB/client.log" 2>&1 || rc=$?
  for i in $(seq 600); do kill -0 "$STAGE_BG_PID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$STAGE_BG_PID" 2>/dev/null; then
    [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
    kill -KILL "$STAGE_BG_PID" 2>/dev/null
    rc=1
  fi
  wait "$STAGE_BG_PID" 2>/dev/null
  STAGE_BG_PID=''
  check "$([[ $rc == 0 && $n == $'20000\t2560000' ]] && echo 1 || echo 0)" "mariadb $way server" \
    "pid ${pid:-?}; rows: ${n:-none}; exit $rc"
  if [[ $rc != 0 || -z $pid ]]; then tail -n 15 "$MDB/err.$way.log" 2>/dev/null | sed 's/^/    /'; fi
  local f=$MDB/$way.$pid.stats leases created reused lib_bytes in_use out ok=0
  read -r leases created reused lib_bytes in_use < <(stage_rockpool_totals "$f" /nonexistent)
  out=$(/usr/bin/rockpool stats "$f" 2>&1)
  # The codec columns (zstd, zlib, lz4): the server's zlib pooled, and no
  # codec forwarded (a codec it never called stays unused: bound at first use).
  ((leases > 0 && reused > created)) &&
    grep -qE "^pid $pid .* (unused|pooled) +pooled +(unused|pooled) *$" <<<"$out" && ok=1
  check "$ok" "mariadb $way pooled" "leases=$leases created=$created reused=$reused lib_bytes=$lib_bytes in_use=$in_use"
  # The table itself, for the record (the closing notes quote it).
  sed 's/^/    /' <<<"$out"
}
if command -v mariadbd >/dev/null && command -v mariadbd-safe >/dev/null &&
   command -v mariadb-install-db >/dev/null && [[ -f /usr/lib/mysql/plugin/ha_rocksdb.so ]]; then
  c=$(/usr/bin/rockpool check mariadbd 2>&1)
  check "$([[ $c == "librockpool_interpose.so: /usr/sbin/mariadbd needs no librocksdb.so"* ]] && echo 1 || echo 0)" \
    "check mariadbd" "$(head -n 1 <<<"$c" | cut -c1-100)"
  mkdir -p "$MDB"
  if mariadb-install-db --no-defaults --datadir="$MDB/template" --auth-root-authentication-method=normal \
       >"$MDB/install-db.log" 2>&1; then
    mariadb_life run
    mariadb_life safe
  else
    check 0 "mariadb install-db" "$(tail -n 1 "$MDB/install-db.log")"
  fi
else
  stage_say "mariadb SKIPPED: mariadb-server and mariadb-plugin-rocksdb are not installed (tools/setup.sh --stage=myrocks)"
fi

# --- man pages ----------------------------------------------------------------------
for page in rockpool sst_replay; do
  # Piped, man prints plain text (no overstrikes).
  out=$(MANWIDTH=80 man -l "/usr/share/man/man1/$page.1.gz" 2>"$WORK/man.err")
  ok=0
  [[ $out == *NAME* && $out == *SYNOPSIS* && ! -s $WORK/man.err ]] && ok=1
  check "$ok" "man $page" "$(grep -m1 -A1 '^NAME' <<<"$out" | tail -n 1 | sed 's/^ *//' | cut -c1-80)"
done

# --- remove -------------------------------------------------------------------------
rc=0
dpkg -r "$preload_pkg" rockpool >"$WORK/dpkg-r.log" 2>&1 || rc=$?
left=()
while read -r f; do
  [[ -e $f && ! -d $f ]] && left+=("$f")  # directories: the package's own are checked below
done <"$WORK/contents.txt"
for d in "$LIBDIR" /usr/share/doc/rockpool "/usr/share/doc/$preload_pkg"; do [[ -e $d ]] && left+=("$d"); done
status=$(dpkg-query -W -f='${Status} ' rockpool "$preload_pkg" 2>/dev/null || true)
ok=0
((rc == 0 && ${#left[@]} == 0)) && [[ $status != *" installed "* ]] && ok=1
check "$ok" "remove" "dpkg -r exit $rc; left: ${left[*]:-nothing}; status: ${status:-unknown}"
purge_ours
INSTALLED=0

if ((STAGE_KEEP_ALL)); then stage_say "work directory kept: $WORK"; else rm -rf "$WORK"; fi
stage_say "took $(stage_elapsed) s"
stage_summary
((STAGE_FAILED == 0))
