#!/usr/bin/env bash
# //tools/process:libmalloc_counter.so preloaded into real programs, as the
# measure scripts use it: the exit line they read (one per process, appended
# to $MALLOC_COUNTER_OUT), counts under glibc and under jemalloc preloaded
# after it, and its manners as a guest (silent without the variable, no
# symbolic link followed).
# Usage: malloc_counter_preload_test.sh <libmalloc_counter.so> [--asan]
set -uo pipefail
so=$(realpath "$1")
if [ "${2:-}" = --asan ]; then
  # An ASan-built object cannot be preloaded into uninstrumented programs.
  echo "SKIPPED under --config=asan"
  exit 0
fi
dir=${TEST_TMPDIR:-$(mktemp -d)}
fail=0
say() { echo "$*"; }
bad() { echo "FAIL $*"; fail=1; }

seq 1 20000 >"$dir/numbers"
line_re='^malloc_calls=[0-9]+ malloc_bytes=[0-9]+$'

# Two processes into one file: two lines of the scripts' format.
out=$dir/counts
LD_PRELOAD=$so MALLOC_COUNTER_OUT=$out sort -R "$dir/numbers" >/dev/null || bad "sort failed"
LD_PRELOAD=$so MALLOC_COUNTER_OUT=$out sort -n "$dir/numbers" >/dev/null || bad "sort failed"
[ "$(grep -cE "$line_re" "$out")" = 2 ] || bad "expected two lines, got: $(cat "$out")"
calls=$(sed -n 's/^malloc_calls=\([0-9]*\).*/\1/p' "$out" | tail -1)
[ "${calls:-0}" -gt 0 ] || bad "no malloc call counted: $(cat "$out")"
say "glibc: $(tail -1 "$out")"

# jemalloc preloaded after the counter serves the calls, which are still
# counted (the counter forwards to the next definition).
je=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
if [ -f "$je" ]; then
  LD_PRELOAD="$so:$je" MALLOC_COUNTER_OUT=$dir/je sort -n "$dir/numbers" >"$dir/sorted" ||
    bad "sort under jemalloc failed"
  cmp -s "$dir/sorted" <(sort -n "$dir/numbers") || bad "sort under jemalloc changed its output"
  je_calls=$(sed -n 's/^malloc_calls=\([0-9]*\).*/\1/p' "$dir/je")
  [ "${je_calls:-0}" -gt 0 ] || bad "nothing counted under jemalloc: $(cat "$dir/je")"
  say "jemalloc: $(cat "$dir/je")"
fi

# Silent unless asked: no variable, no output and no file.
err=$(cd "$dir" && LD_PRELOAD=$so sort "$dir/numbers" 2>&1 >/dev/null)
[ -z "$err" ] || bad "wrote without MALLOC_COUNTER_OUT: $err"

# No symbolic link followed: the link's target stays untouched.
: >"$dir/target"
ln -sf "$dir/target" "$dir/link"
LD_PRELOAD=$so MALLOC_COUNTER_OUT=$dir/link sort "$dir/numbers" >/dev/null || bad "sort failed"
[ ! -s "$dir/target" ] || bad "followed a symbolic link: $(cat "$dir/target")"

[ "$fail" = 0 ] && say "PASS"
exit $fail
