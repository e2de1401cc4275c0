#!/usr/bin/env bash
# Builds rockpool's Debian packages for the distribution it runs on (Debian
# 12 or 13; no network, no root): the version from rockpool_version.h with
# +deb<N> for Debian <N>, the binaries from Bazel (opt), the rest from
# packaging/ (packaging/README.md says what goes where and which lintian
# warnings are left).
#
#   bash tools/package.sh [--out=DIR] [--lintian]
#
#   --out=DIR   where the .debs go (default: dist/ at the repository root);
#               the staged trees are DIR/root-<package>
#   --lintian   also run lintian on the packages (fails on an error)
#
# Two packages, so that a host with its own RocksDB (MariaDB's MyRocks) gets
# no librocksdb:
#   rockpool                  what every host needs, whatever its RocksDB:
#     /usr/lib/x86_64-linux-gnu/rockpool/librockpool_interpose.so
#     /usr/bin/rockpool, /usr/share/man/man1/rockpool.1.gz (packaging/man/)
#     /usr/share/doc/rockpool/{copyright,SECURITY.md,changelog.gz,examples/}
#   rockpool-rocksdb<X.Y>     what links this distribution's
#                             librocksdb.so.<X.Y> (7.8 on Debian 12, 9.10 on
#                             Debian 13): the preload object built against
#                             it, and sst_replay (it replays through the real
#                             RocksDB and the legacy face, linked in):
#     /usr/lib/x86_64-linux-gnu/rockpool/librockpool_preload.so
#     /usr/bin/sst_replay, /usr/share/man/man1/sst_replay.1.gz
#     /usr/share/doc/rockpool-rocksdb<X.Y>/{copyright,SECURITY.md,changelog.gz}
# Depends: what dpkg-shlibdeps finds the files need; the preload package
# also rockpool of the same version, and librocksdb<X.Y> pinned to the
# upstream release the object was built against (its DB::Open hook binds to
# that release's internals).
# Needs dpkg-dev (dpkg-shlibdeps) and, for --lintian, lintian:
# `bash tools/setup.sh --stage=package`.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD

out=$REPO/dist
run_lintian=0
for a in "$@"; do
  case $a in
    --out=*) out=${a#--out=} ;;
    --lintian) run_lintian=1 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "package: unknown argument '$a' (see --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
say() { echo "package: $*"; }
die() { echo "package: $*" >&2; exit 1; }

version=$(sed -nE 's/^#define ROCKPOOL_VERSION "([^"]+)"$/\1/p' rockpool_version.h)
[[ -n $version ]] || die "no ROCKPOOL_VERSION in rockpool_version.h"
arch=$(dpkg --print-architecture)
[[ $arch == amd64 ]] || die "builds for amd64 only (the objects' directory is x86_64-linux-gnu), not $arch"
command -v dpkg-shlibdeps >/dev/null || die "dpkg-shlibdeps missing: bash tools/setup.sh --stage=package"

targets=(//rocksdb_plugin:librockpool_preload.so //rocksdb_plugin:librockpool_interpose.so
         //tools/rockpool //tools/sst_replay)
say "bazel build ${targets[*]}"
bazel build "${targets[@]}" >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; die "bazel build failed"; }
bin=$(bazel info bazel-bin 2>/dev/null)

# The distribution: Debian <N> from /etc/os-release, in the version
# (+deb<N>) so that the two builds of one rockpool release never share a
# package version.
distro=$( (. /etc/os-release && echo "${ID:-}:${VERSION_ID:-}") 2>/dev/null) || distro=
[[ $distro =~ ^debian:([0-9]+)$ ]] || die "builds on Debian only (/etc/os-release says '${distro:-nothing}')"
debversion="$version+deb${BASH_REMATCH[1]}"

# The RocksDB the preload object links: the soname it needs, and the Debian
# package that ships it (librocksdb7.8, librocksdb9.10).
soname=$(objdump -p "$bin/rocksdb_plugin/legacy/librockpool_preload.so" | awk '$1 == "NEEDED" && $2 ~ /^librocksdb\.so\./ { print $2 }')
[[ $soname =~ ^librocksdb\.so\.([0-9]+\.[0-9]+)$ ]] || die "librockpool_preload.so needs no librocksdb.so.X.Y (objdump -p)"
rocks_pkg=librocksdb${BASH_REMATCH[1]}
rocks=$(dpkg-query -W -f='${Version}' "$rocks_pkg" 2>/dev/null) || die "$rocks_pkg is not installed"
rocks=${rocks#*:}
rocks=${rocks%%-*}
[[ $rocks =~ ^([0-9]+\.[0-9]+)\.([0-9]+)$ ]] || die "$rocks_pkg $rocks: not an X.Y.Z upstream version"
rocks_next="${BASH_REMATCH[1]}.$((BASH_REMATCH[2] + 1))"
preload_pkg=rockpool-rocksdb${BASH_REMATCH[1]}

shl=$(mktemp -d)
trap 'rm -rf "$shl"' EXIT
mkdir "$shl/debian"
printf 'Source: rockpool\n\nPackage: rockpool\nArchitecture: amd64\n' >"$shl/debian/control"
# shlibs_depends <file...>: what dpkg-shlibdeps finds they need.
shlibs_depends() {
  local args=() f deps
  for f in "$@"; do args+=("-e$f"); done
  deps=$(cd "$shl" && dpkg-shlibdeps -O "${args[@]}" 2>"$out/shlibdeps.log" |
           sed -n 's/^shlibs:Depends=//p') || { cat "$out/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
  [[ -n $deps ]] || die "dpkg-shlibdeps found no dependencies of $*"
  echo "$deps"
}
# stage_doc <root> <package>: copyright, the threat model and the Debian changelog.
stage_doc() {
  local doc=$1/usr/share/doc/$2
  install -d "$doc"
  install -m 0644 packaging/copyright "$doc/copyright"
  install -m 0644 SECURITY.md "$doc/SECURITY.md"
  # A native package: its Debian changelog is changelog.gz (Policy 12.7).
  gzip -9n <packaging/changelog >"$doc/changelog.gz"
}
# build_deb <root> <package> <depends> <description, with its leading line>
build_deb() {
  local root=$1 package=$2 depends=$3 description=$4 size deb
  find "$root/usr" -type d -exec chmod 0755 {} +
  find "$root/usr/share" -type f -exec chmod 0644 {} +
  size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
  install -d "$root/DEBIAN"
  cat >"$root/DEBIAN/control" <<CONTROL
Package: $package
Version: $debversion
Architecture: amd64
Maintainer: rockpool maintainers <maintainers@users.noreply.a-seed-fb4667a5.example>
Installed-Size: $size
Depends: $depends
Section: utils
Priority: optional
Description: $description
CONTROL
  (cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
  chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
  deb=$out/${package}_${debversion}_amd64.deb
  dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
  say "built $deb ($(du -k "$deb" | cut -f1) KiB)"
  say "$package Depends: $depends"
  debs+=("$deb")
}
debs=()
rm -f "$out"/rockpool*_amd64.deb

LIBDIR=usr/lib/x86_64-linux-gnu/rockpool
# stage_files <package> <object> <program>: a package's tree, $root: the
# object (of bazel-bin's rocksdb_plugin/) in the objects' directory, the
# program (bazel-bin's tools/<program>/<program>) with its man page, and
# the package's doc directory.
stage_files() {
  local package=$1 object=$2 program=$3 libdir
  root=$out/root-$package
  rm -rf "$root"
  libdir=$root/$LIBDIR
  install -d "$libdir" "$root/usr/bin" "$root/usr/share/man/man1"
  install -m 0644 "$bin/rocksdb_plugin/legacy/$object" "$libdir/"
  install -m 0755 "$bin/tools/$program/$program" "$root/usr/bin/"
  # Debian ships binaries without debug information or .comment notes.
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$libdir/$object"
  strip --remove-section=.comment --remove-section=.note "$root/usr/bin/$program"
  gzip -9n <"packaging/man/$program.1" >"$root/usr/share/man/man1/$program.1.gz"
  stage_doc "$root" "$package"
}

# --- rockpool: every host ---------------------------------------------------------
stage_files rockpool librockpool_interpose.so rockpool
install -d "$root/usr/share/doc/rockpool/examples"
install -m 0644 packaging/examples/mariadb-rockpool.conf "$root/usr/share/doc/rockpool/examples/"
deps=$(shlibs_depends "$root/$LIBDIR/librockpool_interpose.so" "$root/usr/bin/rockpool")
[[ $deps != *librocksdb* ]] || die "rockpool would depend on librocksdb ($deps): it is for every host"
build_deb "$root" rockpool "$deps" "pooled zstd/zlib/LZ4 compression contexts for RocksDB
 RocksDB creates and frees zstd, zlib and LZ4 contexts for every block, file
 or blob it compresses; rockpool serves them from bounded pools, with
 compressed bytes identical to stock RocksDB's.
 .
 What users feel (Debian db_bench 7.8.3, stock -> rockpool, medians of 5
 alternating pairs): under jemalloc 5.3 as Debian ships it, LZ4HC
 fill+compact 14.62 s -> 3.28 s and an LZ4HC BlobDB 34.61 s -> 1.63 s; a zlib
 compressed secondary cache under glibc 4.77 s -> 2.62 s. Debian db_bench
 9.10 (Debian 13): LZ4HC fill+compact under jemalloc as shipped 4.84 s ->
 2.31 s, the zlib secondary cache under glibc 3.20 s -> 2.69 s; under a
 jemalloc 5.3.1, which zeroes large callocs with memset, stock LZ4HC is
 already 2.26 s (pooled 2.16 s). Elsewhere (zlib, zstd and LZ4 SSTs, reads)
 no felt difference. MariaDB's MyRocks under sysbench, transactions/s:
 oltp_write_only on Debian 12 (MariaDB 10.11, LZ4HC, jemalloc) 2,270 ->
 2,350 and on Debian 13 (MariaDB 11.8) 1,980 -> 2,060; no MyRocks cell
 significantly worse (32 cells, 4 codecs, glibc and jemalloc).
 The project's README names the table each figure comes from.
 .
 This package holds the interposer for any process (MariaDB's MyRocks and
 other programs with their own RocksDB included; it needs no RocksDB) and
 the rockpool command that runs a program with the right object and reads its
 statistics. The preload object for programs linking Debian's librocksdb.so
 (db_bench, ldb, sst_dump, your own) and sst_replay, which measures the
 churn of a workload's SST files, are in $preload_pkg."

# --- rockpool-rocksdb<X.Y>: the preload object for this distribution's RocksDB ----
stage_files "$preload_pkg" librockpool_preload.so sst_replay
deps=$(shlibs_depends "$root/$LIBDIR/librockpool_preload.so" "$root/usr/bin/sst_replay")
# The library package: exactly the upstream version built against (any Debian revision).
deps=$(tr ',' '\n' <<<"$deps" | sed 's/^ *//' | grep -v "^$rocks_pkg\\( \\|\$\\)" | paste -sd, - | sed 's/,/, /g')
deps="rockpool (= $debversion), $deps, $rocks_pkg (>= $rocks), $rocks_pkg (<< $rocks_next)"
build_deb "$root" "$preload_pkg" "$deps" "rockpool's preload object and sst_replay for RocksDB $rocks
 rockpool serves RocksDB's zstd, zlib and LZ4 contexts from bounded pools,
 with compressed bytes identical to stock RocksDB's.
 .
 This package holds librockpool_preload.so, built for Debian's RocksDB
 $rocks: preloaded into a program linking $soname (db_bench, ldb,
 sst_dump, your own; \`rockpool run\` picks it), it lets
 \`listeners={id=rockpool}\` in an OPTIONS file or options string configure
 the pools. It also holds sst_replay, which replays a workload's SST files
 through this RocksDB, stock and pooled, and reports the allocation churn.
 Hosts with their own RocksDB (MariaDB's MyRocks) need only the rockpool
 package."

if ((run_lintian)); then
  command -v lintian >/dev/null || die "lintian missing: bash tools/setup.sh --stage=package"
  lintian --tag-display-limit 0 "${debs[@]}" >"$out/lintian.txt" 2>&1 || true
  errors=$(grep -c '^E: ' "$out/lintian.txt" || true)
  warnings=$(grep -c '^W: ' "$out/lintian.txt" || true)
  say "lintian: $errors errors, $warnings warnings ($out/lintian.txt)"
  sed 's/^/  /' "$out/lintian.txt"
  ((errors == 0)) || die "lintian reported errors"
fi
