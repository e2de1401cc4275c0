#!/usr/bin/env bash
# Builds RocksDB's own db_stress, from Debian's rocksdb source package, against
# Debian's shared librocksdb.so.X.Y (7.8 on Debian 12, 9.10 on Debian 13) --
# the same library rockpool's legacy face (the LD_PRELOAD object) interposes
# under. Debian ships no db_stress binary.
#
#   tests/db_stress/build.sh          prints the binary's path on its last
#                                     stdout line (progress goes to stderr)
#
# Idempotent: the deb-src entry, the source tree and the binary are made once
# and reused; a second run on a set-up machine does no network work and no
# compilation (the binary is rebuilt only when it is older than the sources or
# the library, or was built with another command line).
#
# Environment:
#   ROCKPOOL_CACHE   cache root (default /var/cache/rockpool); the source and
#                    the binary live under $ROCKPOOL_CACHE/db_stress, outside
#                    the repository (RocksDB's source is never copied into it)
#   CXX              compiler (default g++)
#   JOBS             parallel compiles (default: number of cores)
set -euo pipefail

cache=${ROCKPOOL_CACHE:-/var/cache/rockpool}/db_stress
cxx=${CXX:-g++}
jobs=${JOBS:-$(nproc)}
srclist=/etc/apt/sources.list.d/rockpool-deb-src.sources

log() { echo "db_stress build: $*" >&2; }
die() { echo "db_stress build: $*" >&2; exit 1; }
is_root() { [[ $(id -u) -eq 0 ]]; }

# --- packages, deb-src entry, source index: tools/setup.sh --stage=db_stress ---
# g++, librocksdb-dev (the .so and headers db_stress links against), the -dev
# packages of every codec RocksDB was built with (db_stress's flags name them),
# dpkg-dev (dpkg-source, which `apt-get source` needs to unpack); a deb-src
# entry in a sources file of its own ($srclist) and its source index.
bash "$(dirname "$0")/../../tools/setup.sh" --stage=db_stress >&2 ||
  die "tools/setup.sh --stage=db_stress failed"

# The source package must be the one the installed library was built from:
# db_stress uses RocksDB internals (DBImpl::TEST_*, class layouts), so a source
# tree of another version would link or run wrongly.
version_of_lib() {
  dpkg-query -W -f='${source:Version}' librocksdb-dev 2>/dev/null || true
}

# --- source tree --------------------------------------------------------------
version=$(version_of_lib)
[[ -n $version ]] || die "librocksdb-dev is not installed"
# The upstream version (no epoch, no Debian revision) names the unpacked tree;
# its major.minor the library's soname (7.8.3 -> .so.7.8, 9.10.0 -> .so.9.10).
upstream=${version#*:}
upstream=${upstream%-*}
[[ $upstream =~ ^([0-9]+)\.([0-9]+) ]] || die "cannot read a release from librocksdb-dev $version"
lib=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/librocksdb.so.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
[[ -e $lib ]] || die "$lib not found (librocksdb-dev $version)"
src=$cache/rocksdb-$upstream

# An unpacked tree is complete only once its stamp exists (written after
# apt-get source returned), so an interrupted unpack is redone.
if [[ ! -f $src/.rockpool-unpacked-$version ]]; then
  mkdir -p "$cache"
  log "apt-get source rocksdb=$version into $cache"
  rm -rf "$src"
  # Run from the cache dir: apt-get source unpacks into the current directory.
  # As root, download as root too: apt's _apt sandbox user cannot write there
  # (apt would warn and do the same).
  sandbox=()
  is_root && sandbox=(-o APT::Sandbox::User=root)
  # apt's complaint is shown only if the fallback below fails too.
  fetch_log=$(mktemp)
  trap 'rm -f "$fetch_log"' EXIT
  if ! (cd "$cache" && apt-get source -qq "${sandbox[@]}" "rocksdb=$version") >"$fetch_log" 2>&1; then
    # An archive may serve the upstream tarball but not Debian's .dsc and
    # .debian.tar.xz (this machine's mirror does so for trixie's 9.10.0-1).
    # The tarball alone, checked by apt against the source index's hash,
    # still holds db_stress_tool/; Debian's patches are then not applied
    # (7.8.3-2's touch the build, tests and other architectures, none of
    # db_stress_tool/).
    log "Debian's part of rocksdb=$version not in the archive: the upstream tarball alone"
    (cd "$cache" && apt-get source -qq --tar-only "${sandbox[@]}" "rocksdb=$version" >&2) ||
      { cat "$fetch_log" >&2; die "apt-get source rocksdb=$version failed"; }
    tar -xzf "$cache/rocksdb_$upstream.orig.tar.gz" -C "$cache" ||
      die "cannot unpack $cache/rocksdb_$upstream.orig.tar.gz"
  fi
  [[ -d $src/db_stress_tool ]] || die "apt-get source did not give $src/db_stress_tool"
  touch "$src/.rockpool-unpacked-$version"
fi

# --- compile --------------------------------------------------------------------
# The files of src.mk's STRESS_LIB_SOURCES plus db_stress.cc (14 in 7.8.3, 17
# in 9.10) are all that is needed: Debian's .so already exports the test
# utilities and fault-injection file system db_stress uses.
# No -DNDEBUG: Debian's .so is a debug-layout build (it exports DBImpl::TEST_*
# and SyncPoint, and port::Mutex etc. carry debug members), so NDEBUG would give
# different class layouts; it also keeps db_stress's read-fault injection,
# which is compiled only without NDEBUG. RTTI stays on (g++'s default), as in
# the .so. The -D list is what RocksDB's CMake passes for this platform and
# Debian's codec set.
DEFINES=(-DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX -DOS_LINUX
         -DZLIB -DZSTD -DSNAPPY -DLZ4 -DBZIP2 -DGFLAGS=1 -DROCKSDB_USE_RTTI)
CXXFLAGS_DB_STRESS=(-std=c++17 -O2 -g1 -fno-omit-frame-pointer -pthread)
LIBS=("$lib" -lgflags -lzstd -lz -lsnappy -llz4 -lbz2 -lpthread -ldl)

out=$cache/build-$version
bin=$out/db_stress
# The release's own list, read from its src.mk (one file per line, each
# ending in a backslash, up to the first line without one).
mapfile -t sources < <(awk '
  /^STRESS_LIB_SOURCES *=/ { on = 1; next }
  on { if ($1 ~ /\.cc$/) print src "/" $1; if ($0 !~ /\\ *$/) exit }' src="$src" "$src/src.mk")
((${#sources[@]})) || die "no STRESS_LIB_SOURCES in $src/src.mk"
sources+=("$src/db_stress_tool/db_stress.cc")

# The compile and link command lines, recorded next to the binary: a changed
# flag rebuilds, a fresh checkout of this script (new mtime) does not.
recipe="$cxx ${CXXFLAGS_DB_STRESS[*]} ${DEFINES[*]} | ${LIBS[*]} | $version"
up_to_date() {
  [[ -x $bin && -f $out/recipe ]] || return 1
  [[ $(cat "$out/recipe") == "$recipe" ]] || return 1
  local f
  for f in "$src"/db_stress_tool/* "$lib"; do
    [[ $f -nt $bin ]] && return 1
  done
  return 0
}

if up_to_date; then
  log "up to date ($bin)"
else
  log "compiling ${#sources[@]} files with $cxx, $jobs at a time"
  start=$SECONDS
  tmp=$out.tmp
  rm -rf "$tmp"
  mkdir -p "$tmp"
  export cxx tmp src
  export DB_STRESS_FLAGS="${CXXFLAGS_DB_STRESS[*]} ${DEFINES[*]}"
  # shellcheck disable=SC2016  # expanded by the inner shell
  printf '%s\0' "${sources[@]}" | xargs -0 -n1 -P"$jobs" bash -c '
    set -euo pipefail
    f=$1; o=$tmp/$(basename "$f" .cc).o
    # shellcheck disable=SC2086  # word splitting of the flag list is meant
    "$cxx" $DB_STRESS_FLAGS -I"$src" -I"$src/include" -c "$f" -o "$o" ||
      { echo "db_stress build: FAILED compiling $f" >&2; exit 255; }
  ' _
  "$cxx" "${CXXFLAGS_DB_STRESS[@]}" -o "$tmp/db_stress" "$tmp"/*.o "${LIBS[@]}"
  printf '%s\n' "$recipe" >"$tmp/recipe"
  rm -rf "$out"
  mv "$tmp" "$out"
  log "built in $((SECONDS - start)) s"
fi
echo "$bin"
