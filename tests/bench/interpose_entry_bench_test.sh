#!/usr/bin/env bash
# //bench:interpose_entry_bench still measures what it says: in exact mode
# every kind's pairs are leased from the pools (pooled) or never leased
# (forwarded) -- the binary checks rockpool's statistics and exits non-zero
# otherwise -- and a short benchmark run reports no error
# (SkipWithError: "not interposed?").
# Usage: interpose_entry_bench_test.sh <interpose_entry_bench>
set -euo pipefail
bench=$1
fail=0
for kind in zstd_cctx zstd_dctx deflate inflate; do
  for mode in pooled forwarded; do
    if out=$("$bench" --pairs=200 --warmup=10 --kind=$kind --mode=$mode 2>&1); then
      echo "ok   $out"
    else
      echo "FAIL $kind $mode: $out"; fail=1
    fi
  done
done
# A kind that does not exist is a usage error, not a silent pass.
if "$bench" --pairs=10 --kind=lz4 --mode=pooled >/dev/null 2>&1; then
  echo "FAIL --kind=lz4 accepted"; fail=1
fi
out=$("$bench" --benchmark_min_time=0.001 2>&1) || { echo "FAIL benchmark run: $out"; exit 1; }
echo "$out"
if grep -q "ERROR OCCURRED" <<<"$out"; then echo "FAIL a benchmark reported an error"; fail=1; fi
[ "$(grep -c '^BM_' <<<"$out")" = 12 ] || { echo "FAIL expected 12 benchmarks"; fail=1; }
exit $fail
