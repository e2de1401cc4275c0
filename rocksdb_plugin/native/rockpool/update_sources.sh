#!/usr/bin/env bash
# Regenerates the plugin directory's source list (rockpool.mk's
# rockpool_SOURCES) from the Bazel build of //rocksdb_plugin/native:plugin:
# the core's sources as src/<path> (the links link_sources.sh makes when a
# RocksDB build starts), the directory's own files as they are. Needs an
# upstream RocksDB (>= 10.4), as the native targets do:
#   rocksdb_plugin/native/rockpool/update_sources.sh /path/to/install [bazel startup options...]
set -euo pipefail
prefix=${1:?usage: $0 /path/to/rocksdb/install [bazel startup options]}
shift
cd "$(dirname "$0")/../../.."
plugin=rocksdb_plugin/native/rockpool
labels=$(bazel "$@" query --repo_env=ROCKPOOL_ROCKSDB_PREFIX="$prefix" \
  --noimplicit_deps 'filter("\.cc$", kind("source file", deps(//rocksdb_plugin/native:plugin)))' 2>/dev/null |
  grep '^//' | sort)
sources=()
for label in $labels; do
  path=${label#//}
  path=${path/://}
  path=${path#/}
  case $path in
    "$plugin"/*) sources+=("${path#"$plugin"/}") ;;
    *) sources+=("src/$path") ;;
  esac
done
line="rockpool_SOURCES = ${sources[*]}"
sed -i "s|^rockpool_SOURCES = .*|$line|" "$plugin/rockpool.mk"
echo "$plugin/rockpool.mk: ${#sources[@]} sources"
