#!/usr/bin/env bash
# The C/C++ sources follow the repository's .clang-format: every tracked
# .cc, .h and .c outside third_party/ is run through clang-format-14 and
# compared with itself. Prints each file that differs (and, with -v, how),
# then "clang_format: N passed, M failed" last, as .ci/run's stages do; exits
# non-zero when a file is not formatted.
#
#   tests/format/run.sh [-v]       check (CI's clang_format stage)
#   tests/format/run.sh --fix      format the files in place instead
#
# clang-format-14 comes with the base packages (tools/setup.sh). Files are
# listed with `git ls-files`, so untracked and ignored files never count.
set -uo pipefail
cd "$(dirname "$0")/../.."
verbose=0 fix=0
for arg in "$@"; do
  case $arg in
    -v) verbose=1 ;;
    --fix) fix=1 ;;
    *) echo "usage: tests/format/run.sh [-v|--fix]" >&2; exit 2 ;;
  esac
done
command -v clang-format-14 >/dev/null || { echo "clang_format: clang-format-14 missing (bash tools/setup.sh)" >&2; exit 2; }
[ -f .clang-format ] || { echo "clang_format: no .clang-format at the repository root" >&2; exit 2; }

mapfile -t files < <(git ls-files -- '*.cc' '*.h' '*.c' ':!:third_party/**')
if [ "${#files[@]}" -eq 0 ]; then
  echo "clang_format: no tracked C/C++ file found (not a git clone?)" >&2
  exit 2
fi
if [ "$fix" -eq 1 ]; then
  clang-format-14 --style=file -i -- "${files[@]}"
fi
passed=0 failed=0
for f in "${files[@]}"; do
  [ -L "$f" ] && continue  # a link's target is checked as itself
  if clang-format-14 --style=file "$f" | cmp -s - "$f"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "not formatted: $f (tests/format/run.sh --fix)"
    [ "$verbose" -eq 1 ] && clang-format-14 --style=file "$f" | diff -u "$f" - | head -40
  fi
done
echo "clang_format: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
