#!/usr/bin/env bash
# The RocksDB plugin directory (rocksdb_plugin/native/rockpool/) as RocksDB's
# make reads it, without an upstream RocksDB: a stand-in RocksDB tree whose
# Makefile does what RocksDB's does with a plugin (include
# plugin/<name>/*.mk, prefix each of <name>_SOURCES with plugin/<name>/,
# one object per source) is run with `make -n`, which fails on a source it
# cannot find. Checked: the repository keeps no symbolic link there (the
# core's sources are linked by link_sources.sh when the build starts), and
# every listed source resolves, both with plugin/rockpool linked to the
# directory inside a rockpool tree and with the directory copied and
# ROCKPOOL_SOURCE_DIR set; a listed source that does not exist fails the
# build with its name.
#
# Bazel: //tests/rocksdb_plugin:plugin_make_test (tagged `external`: it
# reads the work tree its own source lives in, like //tests:doc_paths_test).
# By hand: tests/rocksdb_plugin/plugin_make_test.sh
set -uo pipefail
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
root=$(realpath "$here/../..")
plugin=rocksdb_plugin/native/rockpool
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/plugin_make.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() {  # <1 if it holds> <what>
  if [ "$1" = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $2"; fi
}

# No tracked symbolic link in the plugin directory (git mode 120000).
links=$(git -C "$root" ls-files -s -- "$plugin" 2>/dev/null | awk '$1 == "120000" { print $4 }')
check "$([ -z "$links" ] && echo 1)" "tracked symbolic links in $plugin: $links"

count=$(sed -n 's/^rockpool_SOURCES = //p' "$root/$plugin/rockpool.mk" | wc -w)
check "$([ "$count" -gt 10 ] && echo 1)" "rockpool.mk lists $count sources"

# A stand-in RocksDB tree at $1 whose plugin/rockpool is $2.
stand_in() {
  mkdir -p "$1/plugin"
  ln -s "$2" "$1/plugin/rockpool"
  cat >"$1/Makefile" <<'MAKEFILE'
ROCKSDB_PLUGINS = rockpool
include $(foreach p,$(ROCKSDB_PLUGINS),plugin/$(p)/*.mk)
PLUGIN_SOURCES = $(foreach p,$(ROCKSDB_PLUGINS),$(foreach s,$($(p)_SOURCES),plugin/$(p)/$(s)))
all: $(PLUGIN_SOURCES:.cc=.o)
%.o: %.cc
	$(CXX) $(rockpool_CXXFLAGS) -c $< -o $@
MAKEFILE
}

# The plugin directory's own files (none of what a build made there).
copy_plugin() {  # <to>
  mkdir -p "$1"
  find "$root/$plugin" -maxdepth 1 -type f ! -name '*.o' ! -name '*.d' -exec cp {} "$1/" \;
}

# make -n in $1: every source found, one compile line each.
dry_run() {  # <rocksdb tree> <what> [make arguments]
  local tree=$1 what=$2 out
  shift 2
  out=$(make -n -C "$tree" "$@" 2>&1)
  local status=$? compiled
  compiled=$(grep -c -- ' -c plugin/rockpool/' <<<"$out")
  check "$([ $status -eq 0 ] && [ "$compiled" -eq "$count" ] && echo 1)" \
    "$what: make -n exit $status, $compiled of $count sources: $(tail -3 <<<"$out")"
  check "$(grep -q -- "-I$root " <<<"$out " && echo 1)" "$what: the include path is not $root"
}

# 1. Linked: the directory inside a rockpool tree (its other folders are
# links to this one's), found from the directory's physical place.
tree=$work/rockpool
mkdir -p "$tree/rocksdb_plugin/native"
for f in "$root"/*; do [ "$(basename "$f")" = rocksdb_plugin ] || ln -s "$f" "$tree/"; done
for f in "$root"/rocksdb_plugin/*; do [ "$(basename "$f")" = native ] || ln -s "$f" "$tree/rocksdb_plugin/"; done
for f in "$root"/rocksdb_plugin/native/*; do [ "$(basename "$f")" = rockpool ] || ln -s "$f" "$tree/rocksdb_plugin/native/"; done
copy_plugin "$tree/$plugin"
stand_in "$work/rocksdb_linked" "$tree/$plugin"
root_saved=$root
root=$(realpath "$tree")  # the include path is the stand-in tree's root
dry_run "$work/rocksdb_linked" "linked"
root=$root_saved
link=$tree/$plugin/src/compression/context_pool.h
check "$([ ! -e "$link" ] && [ -L "$tree/$plugin/src/compression/zstd_contexts.cc" ] && echo 1)" \
  "linked: src/ holds a link for each listed source, and only those"

# 2. Copied, with ROCKPOOL_SOURCE_DIR.
copy_plugin "$work/copy"
stand_in "$work/rocksdb_copied" "$work/copy"
dry_run "$work/rocksdb_copied" "copied" ROCKPOOL_SOURCE_DIR="$root"

# 3. A listed source that does not exist: make stops, naming it.
sed -i 's|^rockpool_SOURCES = |rockpool_SOURCES = src/compression/no_such_file.cc |' "$work/copy/rockpool.mk"
out=$(make -n -C "$work/rocksdb_copied" ROCKPOOL_SOURCE_DIR="$root" 2>&1)
status=$?
check "$([ $status -ne 0 ] && grep -q 'compression/no_such_file.cc missing' <<<"$out" && echo 1)" \
  "a missing source: make exit $status: $(tail -2 <<<"$out")"

echo "plugin_make: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
