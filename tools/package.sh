#!/usr/bin/env bash
# Builds the Debian package rockpool_<version>_amd64.deb (no network, no
# root): the version from rockpool_version.h, the binaries from Bazel
# (opt), the rest from packaging/ (packaging/README.md says what goes where
# and which lintian warnings are left).
#
#   bash tools/package.sh [--out=DIR] [--lintian]
#
#   --out=DIR   where the .deb goes (default: dist/ at the repository root);
#               the staged tree is DIR/root
#   --lintian   also run lintian on the package (fails on an error)
#
# Contents:
#   /usr/lib/x86_64-linux-gnu/rockpool/librockpool_{preload,interpose}.so
#   /usr/bin/rockpool, /usr/bin/sst_replay
#   /usr/share/man/man1/{rockpool,sst_replay}.1.gz (packaging/man/)
#   /usr/share/doc/rockpool/{copyright,changelog.gz,README.md,examples/}
# Depends: what dpkg-shlibdeps finds the objects and programs need, with
# librocksdb7.8 pinned to the RocksDB 7.8.3 the preload object was built
# against (its DB::Open hook binds to 7.8.3's internals).
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

root=$out/root
rm -rf "$root"
libdir=$root/usr/lib/x86_64-linux-gnu/rockpool
doc=$root/usr/share/doc/rockpool
install -d "$libdir" "$root/usr/bin" "$root/usr/share/man/man1" "$doc/examples" "$root/DEBIAN"
install -m 0644 "$bin/rocksdb_plugin/librockpool_preload.so" "$bin/rocksdb_plugin/librockpool_interpose.so" "$libdir/"
install -m 0755 "$bin/tools/rockpool/rockpool" "$bin/tools/sst_replay/sst_replay" "$root/usr/bin/"
# Debian ships binaries without debug information or .comment notes.
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$libdir"/*.so
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/rockpool" "$root/usr/bin/sst_replay"
for page in rockpool sst_replay; do
  gzip -9n <"packaging/man/$page.1" >"$root/usr/share/man/man1/$page.1.gz"
done
install -m 0644 packaging/copyright "$doc/copyright"
install -m 0644 SECURITY.md "$doc/SECURITY.md"
# A native package: its Debian changelog is changelog.gz (Policy 12.7).
gzip -9n <packaging/changelog >"$doc/changelog.gz"
install -m 0644 packaging/examples/mariadb-rockpool.conf "$doc/examples/"
find "$root/usr" -type d -exec chmod 0755 {} +
find "$root/usr/share" -type f -exec chmod 0644 {} +

# Dependencies: dpkg-shlibdeps reads a debian/control; a throwaway one.
shl=$(mktemp -d)
trap 'rm -rf "$shl"' EXIT
mkdir "$shl/debian"
printf 'Source: rockpool\n\nPackage: rockpool\nArchitecture: amd64\n' >"$shl/debian/control"
args=()
for f in "$libdir"/*.so "$root/usr/bin/rockpool" "$root/usr/bin/sst_replay"; do args+=("-e$f"); done
deps=$(cd "$shl" && dpkg-shlibdeps -O "${args[@]}" 2>"$out/shlibdeps.log" |
         sed -n 's/^shlibs:Depends=//p') || { cat "$out/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
[[ -n $deps ]] || die "dpkg-shlibdeps found no dependencies"
# librocksdb7.8: exactly the 7.8.3 upstream version (any Debian revision).
rocks=$(dpkg-query -W -f='${Version}' librocksdb7.8 2>/dev/null) || die "librocksdb7.8 is not installed"
[[ $rocks == 7.8.3-* ]] || die "librocksdb7.8 $rocks installed; the preload object is for 7.8.3"
deps=$(tr ',' '\n' <<<"$deps" | sed 's/^ *//' | grep -v '^librocksdb7\.8\( \|$\)' | paste -sd, - | sed 's/,/, /g')
deps="$deps, librocksdb7.8 (>= 7.8.3), librocksdb7.8 (<< 7.8.4)"

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: rockpool
Version: $version
Architecture: amd64
Maintainer: rockpool maintainers <maintainers@users.noreply.a-seed-fb4667a5.example>
Installed-Size: $size
Depends: $deps
Section: utils
Priority: optional
Description: pooled zstd/zlib/LZ4 compression contexts for RocksDB
 RocksDB creates and frees zstd, zlib and LZ4 contexts for every block, file
 or blob it compresses; rockpool serves them from bounded pools, with
 compressed bytes identical to stock RocksDB's.
 .
 What users feel (Debian db_bench 7.8.3, stock -> rockpool, medians of 5
 alternating pairs): under jemalloc 5.3 as Debian ships it, LZ4HC
 fill+compact 14.62 s -> 3.28 s and an LZ4HC BlobDB 34.61 s -> 1.63 s; a zlib
 compressed secondary cache under glibc 4.77 s -> 2.62 s. Elsewhere (zlib,
 zstd and LZ4 SSTs, reads) no felt difference. The project's README names
 the table each figure comes from.
 .
 This package holds the preload object for programs linking Debian's
 librocksdb.so (db_bench, ldb, sst_dump, your own), the interposer for
 processes with their own RocksDB (MariaDB's MyRocks), the rockpool command
 that runs a program with the right one and reads its statistics, and
 sst_replay, which measures the churn of a workload's SST files.
CONTROL
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

deb=$out/rockpool_${version}_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
say "built $deb ($(du -k "$deb" | cut -f1) KiB)"
say "Depends: $deps"
if ((run_lintian)); then
  command -v lintian >/dev/null || die "lintian missing: bash tools/setup.sh --stage=package"
  lintian --tag-display-limit 0 "$deb" >"$out/lintian.txt" 2>&1 || true
  errors=$(grep -c '^E: ' "$out/lintian.txt" || true)
  warnings=$(grep -c '^W: ' "$out/lintian.txt" || true)
  say "lintian: $errors errors, $warnings warnings ($out/lintian.txt)"
  sed 's/^/  /' "$out/lintian.txt"
  ((errors == 0)) || die "lintian reported errors"
fi
