#!/bin/sh
# Makes this directory's src/ tree: one symbolic link per src/<path> entry of
# rockpool.mk's rockpool_SOURCES line, to <rockpool root>/<path>. The
# repository keeps no copy of the core here: RocksDB compiles every plugin
# source as plugin/rockpool/<source>, so the sources must appear under this
# directory, and a ../ path would be resolved from the link's target by the
# kernel (make) but textually by CMake. rockpool.mk (make) and
# CMakeLists.txt (CMake) run this before RocksDB reads the list; git ignores
# src/.
#
#   link_sources.sh ROCKPOOL_ROOT
#
# Existing links are replaced, nothing else in src/ is touched (make keeps
# its object files there). Fails, naming the file, when a listed source is
# not in ROCKPOOL_ROOT.
set -eu
root=${1:?usage: link_sources.sh ROCKPOOL_ROOT}
root=$(cd "$root" && pwd -P)  # absolute: a link resolves from its own folder
dir=$(cd "$(dirname "$0")" && pwd -P)
sources=$(sed -n 's/^rockpool_SOURCES = //p' "$dir/rockpool.mk")
[ -n "$sources" ] || { echo "rockpool: no rockpool_SOURCES line in $dir/rockpool.mk" >&2; exit 1; }
for source in $sources; do
  case $source in
    src/*) ;;
    *) continue ;;  # the plugin directory's own file
  esac
  path=${source#src/}
  [ -f "$root/$path" ] || { echo "rockpool: $root/$path missing (rockpool.mk lists $source)" >&2; exit 1; }
  mkdir -p "$dir/$(dirname "$source")"
  ln -sfn "$root/$path" "$dir/$source"
done
