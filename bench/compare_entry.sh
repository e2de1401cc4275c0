#!/usr/bin/env bash
# Old vs new interpose_entry_bench side by side (bench/README.md,
# "Interposed entry points"): runs the two binaries alternately, ROUNDS
# times each, and prints per benchmark the median CPU time of each, the
# difference in ns and the ratio. With --callgrind, also instructions per
# pair (callgrind, exactly PAIRS pairs in the collected loop) for each kind
# and mode: exact, unlike times on a shared 2-core machine.
#
# Usage: bench/compare_entry.sh [options] OLD_BINARY NEW_BINARY
#   --rounds=N      alternating rounds (default 5)
#   --min_time=S    --benchmark_min_time per run (default 0.2)
#   --filter=REGEX  --benchmark_filter (default: all)
#   --callgrind     also Ir/pair old vs new (needs valgrind)
#   --only_callgrind  Ir/pair only
#   --pairs=N       pairs per callgrind run (default 20000; 1000 warm-up pairs first)
# A binary is `bazel build //bench:interpose_entry_bench` (bazel-bin/bench/)
# or a copy of it with libinterpose_entry_calls.so beside it (its rpath has
# $ORIGIN). Environment: ROCKPOOL_* is cleared for the runs (the benchmark
# configures rockpool itself).
set -euo pipefail

ROUNDS=5; MIN_TIME=0.2; FILTER=""; CALLGRIND=0; TIMES=1; PAIRS=20000
ARGS=()
for a in "$@"; do
  case "$a" in
    --rounds=*) ROUNDS=${a#*=} ;;
    --min_time=*) MIN_TIME=${a#*=} ;;
    --filter=*) FILTER=${a#*=} ;;
    --callgrind) CALLGRIND=1 ;;
    --only_callgrind) CALLGRIND=1; TIMES=0 ;;
    --pairs=*) PAIRS=${a#*=} ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "compare_entry.sh: unknown option $a" >&2; exit 2 ;;
    *) ARGS+=("$a") ;;
  esac
done
if [ "${#ARGS[@]}" -ne 2 ]; then
  echo "usage: $0 [--rounds=N] [--min_time=S] [--filter=REGEX] [--callgrind] OLD_BINARY NEW_BINARY" >&2
  exit 2
fi
OLD=$(readlink -f "${ARGS[0]}"); NEW=$(readlink -f "${ARGS[1]}")
for b in "$OLD" "$NEW"; do [ -x "$b" ] || { echo "compare_entry.sh: $b is not executable" >&2; exit 2; }; done
while IFS= read -r v; do unset "$v"; done < <(env | sed -n 's/^\(ROCKPOOL_[A-Za-z0-9_]*\)=.*/\1/p')

WORK=$(mktemp -d /tmp/compare_entry.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
echo "old: $OLD"
echo "new: $NEW"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "$TIMES" = 1 ]; then
  for ((r = 1; r <= ROUNDS; r++)); do
    for side in old new; do
      bin=$OLD; [ "$side" = new ] && bin=$NEW
      "$bin" --benchmark_repetitions=1 --benchmark_min_time="$MIN_TIME" \
        ${FILTER:+--benchmark_filter="$FILTER"} --benchmark_format=json \
        >"$WORK/$side.$r.json" 2>"$WORK/$side.$r.err" ||
        { cat "$WORK/$side.$r.err" >&2; echo "compare_entry.sh: $side run $r failed" >&2; exit 1; }
    done
    echo "round $r/$ROUNDS done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  done
  python3 - "$WORK" "$ROUNDS" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
times = {"old": {}, "new": {}}
order = []
for side in ("old", "new"):
    for r in range(1, rounds + 1):
        with open(f"{work}/{side}.{r}.json") as f:
            for b in json.load(f)["benchmarks"]:
                if b.get("error_occurred"):
                    sys.exit(f"compare_entry.sh: {side} {b['name']}: {b.get('error_message')}")
                scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
                times[side].setdefault(b["name"], []).append(b["cpu_time"] * scale)
                if b["name"] not in order:
                    order.append(b["name"])
print(f"\nCPU time per pair, median of {rounds} alternating runs (ns):")
print(f"{'benchmark':<34} {'old':>10} {'new':>10} {'new-old':>9} {'ratio':>7}  spread old / new")
for name in order:
    o, n = times["old"].get(name), times["new"].get(name)
    if not o or not n:
        print(f"{name:<34} {'-' if not o else f'{statistics.median(o):.1f}':>10} "
              f"{'-' if not n else f'{statistics.median(n):.1f}':>10}   (only in one binary)")
        continue
    mo, mn = statistics.median(o), statistics.median(n)
    print(f"{name:<34} {mo:>10.1f} {mn:>10.1f} {mn - mo:>+9.1f} {mn / mo:>7.3f}  "
          f"{min(o):.1f}-{max(o):.1f} / {min(n):.1f}-{max(n):.1f}")
PY
fi

if [ "$CALLGRIND" = 1 ]; then
  command -v valgrind >/dev/null || { echo "compare_entry.sh: valgrind not found" >&2; exit 2; }
  echo
  echo "Instructions per pair (callgrind, $PAIRS pairs collected in rockpool_entry_pairs after 1000 warm-up pairs):"
  printf '%-10s %-10s %10s %10s %9s\n' kind mode old new new-old
  for kind in zstd_cctx zstd_dctx deflate inflate; do
    for mode in pooled forwarded; do
      declare -A IR=()
      for side in old new; do
        bin=$OLD; [ "$side" = new ] && bin=$NEW
        out="$WORK/cg.$side.$kind.$mode"
        valgrind --tool=callgrind --collect-atstart=no --toggle-collect=rockpool_entry_pairs \
          --callgrind-out-file="$out" "$bin" --pairs="$PAIRS" --warmup=1000 --kind=$kind --mode=$mode \
          >"$out.log" 2>&1 || { cat "$out.log" >&2; echo "compare_entry.sh: callgrind $side $kind $mode failed" >&2; exit 1; }
        IR[$side]=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out" | head -1)
      done
      awk -v k=$kind -v m=$mode -v o="${IR[old]}" -v n="${IR[new]}" -v p="$PAIRS" \
        'BEGIN { printf "%-10s %-10s %10.1f %10.1f %+9.1f\n", k, m, o / p, n / p, (n - o) / p }'
      unset IR
    done
  done
fi
