#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 (ASan + UBSan + coverage) and
# runs each for a bounded time. Fails if any target crashes, leaks, times out
# or runs out of memory; the failing input is left under the work directory
# (its path and a reproduce command are printed).
#
#   tests/fuzz/run.sh                     every target, 60 s each (CI)
#   tests/fuzz/run.sh -t 3600 zstd_block  one target for an hour
#   tests/fuzz/run.sh -t 0                build only
#
# Options:
#   -t SECONDS   time per target (default 60; FUZZ_SECONDS)
#   -j N         targets run at once (default: number of cores; FUZZ_PARALLEL)
#   --shutdown   stop the fuzz build's Bazel server afterwards (CI)
# Environment:
#   FUZZ_OUTPUT_BASE  Bazel output base for the clang build (default
#                     ~/.cache/rockpool-fuzz/<hash of this checkout>); separate
#                     from the gcc build's so neither rebuilds the other
#   FUZZ_WORK_DIR     corpus growth and crash artifacts (default
#                     /tmp/rockpool-fuzz); kept between runs, so long runs
#                     resume from what earlier runs found
#   FUZZ_ARGS         extra libFuzzer flags (e.g. "-dict=... -only_ascii=1")
set -uo pipefail
cd "$(dirname "$0")/../.."

ALL_TARGETS=(zstd_block zlib_block lz4_block zlib_stream sst_reader options_parser
             elf_reader stats_file options_file blob_file job_file)

seconds=${FUZZ_SECONDS:-60}
parallel=${FUZZ_PARALLEL:-$(nproc)}
shutdown=0
targets=()
while (($#)); do
  case "$1" in
    -t) seconds=$2; shift 2 ;;
    -j) parallel=$2; shift 2 ;;
    --shutdown) shutdown=1; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    -*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=("${ALL_TARGETS[@]}")

output_base=${FUZZ_OUTPUT_BASE:-$HOME/.cache/rockpool-fuzz/$(printf %s "$PWD" | md5sum | cut -c1-16)}
work=${FUZZ_WORK_DIR:-/tmp/rockpool-fuzz}
bazel_fuzz=(bazel --output_base="$output_base")

labels=()
for t in "${targets[@]}"; do labels+=("//tests/fuzz:${t}_fuzzer"); done
echo "fuzz: building ${targets[*]} with clang-14 (output base $output_base)"
build_start=$SECONDS
# --symlink_prefix=/: no bazel-* symlinks from this output base (they would
# send the default output base's //... into this one's execroot).
if ! "${bazel_fuzz[@]}" build --symlink_prefix=/ --config=fuzz "${labels[@]}"; then
  echo "fuzz: build FAILED" >&2
  exit 1
fi
echo "fuzz: build took $((SECONDS - build_start)) s"
bin_dir=$("${bazel_fuzz[@]}" info --config=fuzz bazel-bin 2>/dev/null)

finish() {
  if ((shutdown)); then "${bazel_fuzz[@]}" shutdown; fi
}
trap finish EXIT

if [[ "$seconds" == 0 ]]; then
  echo "fuzz: built; -t 0 runs nothing"
  exit 0
fi

# One target: its own growing corpus first (libFuzzer writes new inputs to
# the first directory only), then the committed seeds and regressions.
run_one() {
  local t=$1 dir="$work/$1"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  local seeds=("tests/fuzz/corpus/$t")
  [[ -d "tests/fuzz/regressions/$t" ]] && seeds+=("tests/fuzz/regressions/$t")
  "$bin_dir/tests/fuzz/${t}_fuzzer" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -use_value_profile=1 \
    -artifact_prefix="$dir/artifacts/" ${FUZZ_ARGS:-} \
    "$dir/corpus" "${seeds[@]}" >"$dir/log" 2>&1
  echo $? >"$dir/rc"
}

echo "fuzz: running ${targets[*]} for ${seconds} s each, $parallel at a time; logs in $work/<target>/log"
run_start=$SECONDS
running=0
for t in "${targets[@]}"; do
  rm -f "$work/$t/rc"
  run_one "$t" &
  running=$((running + 1))
  if ((running >= parallel)); then
    wait -n
    running=$((running - 1))
  fi
done
wait

passed=0
failed=0
printf '%-16s %12s %10s %8s %8s  %s\n' target executions exec/s new_units rss_mb result
for t in "${targets[@]}"; do
  dir="$work/$t"
  rc=$(cat "$dir/rc" 2>/dev/null || echo 1)
  stat() { grep -m1 "^stat::$1:" "$dir/log" | awk '{print $2}'; }
  execs=$(stat number_of_executed_units)
  rate=$(stat average_exec_per_sec)
  newu=$(stat new_units_added)
  rss=$(stat peak_rss_mb)
  if [[ "$rc" == 0 ]]; then
    result=ok
    passed=$((passed + 1))
  else
    result="FAILED (exit $rc)"
    failed=$((failed + 1))
  fi
  printf '%-16s %12s %10s %8s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${newu:-?}" "${rss:-?}" "$result"
  if [[ "$rc" != 0 ]]; then
    echo "---- $t: last lines of $dir/log ----"
    tail -n 60 "$dir/log"
    for a in "$dir"/artifacts/*; do
      [[ -e "$a" ]] || continue
      echo "fuzz: $t input: $a"
      echo "  reproduce: $bin_dir/tests/fuzz/${t}_fuzzer $a"
      echo "  then: cp $a tests/fuzz/regressions/$t/ (replayed by //tests/fuzz:${t}_replay_test) and add a named test"
    done
  fi
done
echo "fuzz: running took $((SECONDS - run_start)) s"
echo "fuzz: $passed passed, $failed failed"
((failed == 0))
