# shellcheck shell=bash
# The stock-pattern check of tests/myrocks/run.sh (sourced by it after
# mariadb.sh): sst_replay's stock pattern 6.29 against MyRocks' real calls.
# Uses run.sh's WORK, TEMPLATE, CF_EXTRA, SERVER_DIRS and check, and
# mariadb.sh's start_server, load_table, stop_server and show_failure.
#
# sst_replay's blocks mode on a MyRocks data dir (pattern detected from its
# OPTIONS file: MyRocks bundles RocksDB 6.29.5) must count the zstd CCtxs and
# deflate streams that MyRocks' RocksDB really created writing the same
# files: one measure_stock server life that only flushes
# (load_table; automatic compactions off, so every file written is still
# there), then sst_replay on its #rocksdb directory. zstd CCtxs must match
# exactly, deflate streams within 1%. Needs SST_REPLAY (CI passes bazel-bin's).
pattern_case() {
  local codec=$1 dir="$WORK/$1-pattern" f out real_z real_d got ok pattern version z d
  local CF_EXTRA="$CF_EXTRA;disable_auto_compactions=true"
  mkdir -p "$dir"; SERVER_DIRS+=("$dir")
  cp -a "$TEMPLATE" "$dir/data"
  if ! start_server "$dir" "$codec" measure 1; then
    check "$codec" pattern start 0 "(server did not come up)"; show_failure "$dir" 1; stop_server "$dir" 1; return
  fi
  load_table "$dir" || { check "$codec" pattern load 0; show_failure "$dir" 1; }
  stop_server "$dir" 1 || { check "$codec" pattern stop 0; show_failure "$dir" 1; return; }
  f="$dir/rockpool.1"
  real_z=$(stage_report_field "$f" pools zstd_c | cut -d/ -f2)
  real_d=$(stage_report_field "$f" pools deflate | cut -d/ -f2)
  out="$dir/sst_replay.json"
  "$SST_REPLAY" --mode=blocks --repeat=1 --json --progress=false "--tmpdir=$dir" "$dir/data/#rocksdb" \
    >"$out" 2>"$dir/sst_replay.err"
  got=$(python3 - "$out" <<'PY' 2>>"$dir/sst_replay.err"
import json, sys
doc = json.load(open(sys.argv[1]))
m = [x for x in doc["modes"] if x["mode"] == "blocks"][0]["metrics"]
print(doc["stock_pattern"]["pattern"], doc["stock_pattern"]["rocksdb_version"],
      int(m["pool_zstd_compress_created"]["stock"]["median"]),
      int(m["pool_deflate_created"]["stock"]["median"]))
PY
)
  read -r pattern version z d <<<"${got:-? ? -1 -1}"
  ok=0
  if [ "$pattern" = 6.29 ] && [ "${real_z:-x}" = "$z" ] && [ -n "$real_d" ] &&
     awk -v r="$real_d" -v g="$d" 'BEGIN { e = r - g; if (e < 0) e = -e; exit !(e <= 0.01 * r) }'; then
    ok=1
  fi
  case $codec in  # the files' own codec was really used
    zstd) [ "${real_z:-0}" -gt 0 ] || ok=0 ;;
    zlib) [ "${real_d:-0}" -gt 0 ] || ok=0 ;;
  esac
  check "$codec" pattern real_calls "$ok" "(rocksdb_version=$version pattern=$pattern; real: zstd CCtx=$real_z" \
    "deflate=$real_d; sst_replay stock: zstd CCtx=$z deflate=$d)"
  [ "$ok" = 1 ] || { tail -n 5 "$dir/sst_replay.err"; cat "$f" 2>/dev/null; }
}

