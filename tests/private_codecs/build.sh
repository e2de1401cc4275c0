#!/usr/bin/env bash
# Builds the private_codecs stage's programs (tests/private_codecs/README.md):
#   private_codecs_main    a program linking neither libzstd nor libz, which
#                          dlopens a module (main.c)
#   libprivate_codecs.so   the module, with its own zstd and zlib compiled in
#                          from Debian's source packages (-fPIC, default
#                          visibility, no -Bsymbolic: its codec calls go
#                          through its PLT), patched to be told apart from
#                          the system's copies (below)
#   libsystem_twin.so      the same module code against the system's
#                          libzstd.so.1/libz.so.1 (what a silent swap to the
#                          system copy would compute)
#
#   tests/private_codecs/build.sh     prints the build directory on its last
#                                     stdout line (progress goes to stderr)
#
# Idempotent: the sources are fetched once (apt-get source libzstd zlib into
# $ROCKPOOL_CACHE/private_codecs, outside the repository) and the programs
# rebuilt only when a recipe (flags, versions, this stage's sources) changed.
#
# Environment:
#   ROCKPOOL_CACHE   cache root (default /var/cache/rockpool)
#   CC               compiler (default gcc)
#   JOBS             parallel compiles (default: number of cores)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${ROCKPOOL_CACHE:-/var/cache/rockpool}/private_codecs
cc=${CC:-gcc}
jobs=${JOBS:-$(nproc)}

log() { echo "private_codecs build: $*" >&2; }
die() { echo "private_codecs build: $*" >&2; exit 1; }
is_root() { [[ $(id -u) -eq 0 ]]; }

# --- packages, deb-src entry, source index: tools/setup.sh --stage=private_codecs ---
bash "$repo/tools/setup.sh" --stage=private_codecs >&2 ||
  die "tools/setup.sh --stage=private_codecs failed"

# --- sources ------------------------------------------------------------------------
# fetch <source package> <binary package>: unpacks the source of the installed
# binary package's version into $cache (once; a stamp marks a complete
# unpack) and prints the tree's path. If that version cannot be downloaded
# (a security update whose source the mirror lacks), the newest other
# version with the same upstream version is taken, and said.
fetch() {
  local src=$1 bin=$2 version upstream v dir
  version=$(dpkg-query -W -f='${source:Version}' "$bin" 2>/dev/null) || version=
  [[ -n $version ]] || die "$bin is not installed"
  upstream=${version#*:}
  upstream=${upstream%-*}
  local candidates=("$version")
  while read -r v; do
    [[ $v != "$version" ]] && candidates+=("$v")
  done < <(apt-cache showsrc "$src" 2>/dev/null | sed -n 's/^Version: //p' |
           awk -v u="$upstream" '{ w = $0; sub(/^[0-9]+:/, "", w); sub(/-[^-]*$/, "", w) } w == u' |
           sort -r -V)
  local sandbox=()
  is_root && sandbox=(-o APT::Sandbox::User=root)
  for v in "${candidates[@]}"; do
    dir=$cache/$src-$upstream
    if [[ -f $dir/.rockpool-unpacked-$v ]]; then
      echo "$dir $v"
      return 0
    fi
  done
  mkdir -p "$cache"
  for v in "${candidates[@]}"; do
    dir=$cache/$src-$upstream
    rm -rf "$dir"
    log "apt-get source $src=$v into $cache"
    if (cd "$cache" && apt-get source -qq "${sandbox[@]}" "$src=$v" >"$cache/$src.fetch.log" 2>&1); then
      [[ -d $dir ]] || die "apt-get source $src=$v did not give $dir"
      touch "$dir/.rockpool-unpacked-$v"
      [[ $v == "$version" ]] || log "note: $src $version not downloadable; using $v (same upstream $upstream)"
      echo "$dir $v"
      return 0
    fi
    log "apt-get source $src=$v failed: $(grep -m1 '^E:' "$cache/$src.fetch.log" || tail -n 1 "$cache/$src.fetch.log")"
  done
  die "no source of $src $upstream could be fetched"
}

read -r zstd_src zstd_version < <(fetch libzstd libzstd-dev)
read -r zlib_src zlib_version < <(fetch zlib zlib1g-dev)
[[ -f $zstd_src/lib/zstd.h ]] || die "$zstd_src/lib/zstd.h missing"
[[ -f $zlib_src/zlib.h ]] || die "$zlib_src/zlib.h missing"

# --- the recipes: a change of any input rebuilds --------------------------------------
# The codec objects (the slow part, ~40 s on 2 cores) depend on the compiler,
# the flags, the source versions, the patches (this script) and
# private_alloc.h; the programs also on their own sources.
CFLAGS_PRIVATE=(-O2 -g1 -fPIC -fvisibility=default)
ZSTD_DEFS=(-DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 -DXXH_NAMESPACE=ZSTD_)
ZLIB_DEFS=(-DMY_ZCALLOC -DHAVE_HIDDEN -D_LARGEFILE64_SOURCE=1 -DHAVE_UNISTD_H)
objs=$cache/codec-objects
out=$cache/build
codec_recipe=$(
  echo "$cc $("$cc" -dumpfullversion) ${CFLAGS_PRIVATE[*]} ${ZSTD_DEFS[*]} ${ZLIB_DEFS[*]}"
  echo "libzstd $zstd_version zlib $zlib_version"
  cat "$0" "$here"/private_alloc.h | sha256sum
)
recipe=$(
  echo "$codec_recipe"
  cat "$here"/main.c "$here"/module.c "$repo"/tests/rocksdb_plugin/legacy/processes/block_codecs.h |
    sha256sum
)
if [[ -x $out/private_codecs_main && -f $out/libprivate_codecs.so && -f $out/libsystem_twin.so &&
      -f $out/recipe && $(cat "$out/recipe") == "$recipe" ]]; then
  log "up to date ($out)"
  echo "$out"
  exit 0
fi

start=$SECONDS
tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp/obj"

# The patched copies' objects and headers, in $objs.
build_codec_objects() {
otmp=$objs.tmp
rm -rf "$otmp"
mkdir -p "$otmp/zstd" "$otmp/zlib" "$otmp/obj"

# --- the private copies: patched to be told apart from the system's ----------------
# patch <file> <sed expression> <grep that must then match>
patch_file() {
  sed -i -E "$2" "$1"
  grep -qE "$3" "$1" || die "patch of $1 did not apply: $2"
}
cp -a "$zstd_src/lib/." "$otmp/zstd/"
cp -a "$zlib_src"/*.c "$zlib_src"/*.h "$otmp/zlib/"
# ZSTD_versionNumber() 10599 instead of 10504.
patch_file "$otmp/zstd/zstd.h" 's/^#define ZSTD_VERSION_RELEASE +[0-9]+/#define ZSTD_VERSION_RELEASE  99/' \
  '^#define ZSTD_VERSION_RELEASE  99$'
# Level 3's minMatch one higher in all four parameter tables: other (valid)
# frames than the system's libzstd writes.
patch_file "$otmp/zstd/compress/clevels.h" \
  's@^( *\{ *[0-9]+, *[0-9]+, *[0-9]+, *[0-9]+, *)([0-9]+)(, *[0-9]+, *ZSTD_dfast *\}, */\* level  3 \*/)@echo "\1$((\2 + 1))\3"@e' \
  'level  3'
# zlibVersion() "1.2.13.rockpool-private".
patch_file "$otmp/zlib/zlib.h" 's/^#define ZLIB_VERSION "([0-9.]+)"/#define ZLIB_VERSION "\1.rockpool-private"/' \
  '^#define ZLIB_VERSION "[0-9.]+\.rockpool-private"'
# Level 6 (Z_DEFAULT_COMPRESSION) with nice_length 258 instead of 128:
# other (valid) deflate streams than the system's libz writes.
patch_file "$otmp/zlib/deflate.c" 's@^/\* 6 \*/ \{8, +16, 128, 128, deflate_slow\}@/* 6 */ {8,   16, 128, 258, deflate_slow}@' \
  '^/\* 6 \*/ \{8,   16, 128, 258, deflate_slow\}'
# The level-3 rows differ from the originals (sed's e flag ran).
if cmp -s "$otmp/zstd/compress/clevels.h" "$zstd_src/lib/compress/clevels.h"; then
  die "patch of clevels.h did not change it"
fi

# --- compile -------------------------------------------------------------------------
zstd_sources=("$otmp"/zstd/common/*.c "$otmp"/zstd/compress/*.c "$otmp"/zstd/decompress/*.c)
zlib_sources=()
for f in adler32 compress crc32 deflate infback inffast inflate inftrees trees uncompr zutil; do
  zlib_sources+=("$otmp/zlib/$f.c")
done
log "compiling ${#zstd_sources[@]} zstd and ${#zlib_sources[@]} zlib files with $cc, $jobs at a time"
export cc otmp here
export ZSTD_FLAGS="${CFLAGS_PRIVATE[*]} ${ZSTD_DEFS[*]} -include $here/private_alloc.h -I$otmp/zstd -I$otmp/zstd/common"
export ZLIB_FLAGS="${CFLAGS_PRIVATE[*]} ${ZLIB_DEFS[*]} -I$otmp/zlib"
# shellcheck disable=SC2016  # expanded by the inner shell
{ printf 'zstd %s\0' "${zstd_sources[@]}"; printf 'zlib %s\0' "${zlib_sources[@]}"; } |
  xargs -0 -n1 -P"$jobs" bash -c '
    set -euo pipefail
    kind=${1%% *}; f=${1#* }
    o=$otmp/obj/$kind-$(basename "$f" .c).o
    if [[ $kind == zstd ]]; then flags=$ZSTD_FLAGS; else flags=$ZLIB_FLAGS; fi
    # shellcheck disable=SC2086  # word splitting of the flag list is meant
    "$cc" $flags -w -c "$f" -o "$o" ||
      { echo "private_codecs build: FAILED compiling $f" >&2; exit 255; }
  ' _

printf '%s\n' "$codec_recipe" >"$otmp/recipe"
mkdir -p "$otmp/include/zstd" "$otmp/include/zlib"
cp "$otmp"/zstd/zstd.h "$otmp"/zstd/zstd_errors.h "$otmp/include/zstd/"
cp "$otmp"/zlib/zlib.h "$otmp"/zlib/zconf.h "$otmp/include/zlib/"
rm -rf "$otmp/zstd" "$otmp/zlib"
rm -rf "$objs"
mv "$otmp" "$objs"
}
if [[ -f $objs/recipe && $(cat "$objs/recipe") == "$codec_recipe" ]]; then
  log "codec objects up to date ($objs)"
else
  build_codec_objects
fi

COMMON=(-O2 -g1 -fPIC -Wall -Wextra -Werror -I"$repo")
# The module: driver + private copies (their headers first), no -lzstd/-lz.
"$cc" "${COMMON[@]}" -fvisibility=default \
  -I"$objs/include/zstd" -I"$objs/include/zlib" -c "$here/module.c" -o "$tmp/obj/module.o"
"$cc" -shared -o "$tmp/libprivate_codecs.so" "$tmp/obj/module.o" "$objs"/obj/zstd-*.o \
  "$objs"/obj/zlib-*.o
# The twin: the same driver against the system's headers and libraries.
"$cc" "${COMMON[@]}" -DSYSTEM_TWIN \
  -c "$here/module.c" -o "$tmp/obj/twin.o"
"$cc" -shared -o "$tmp/libsystem_twin.so" "$tmp/obj/twin.o" -lzstd -lz
# The program: no codec library.
"$cc" "${COMMON[@]}" -o "$tmp/private_codecs_main" "$here/main.c" -ldl

printf '%s\n' "$recipe" >"$tmp/recipe"
rm -rf "$tmp/obj"
rm -rf "$out"
mv "$tmp" "$out"
log "built in $((SECONDS - start)) s (libzstd $zstd_version, zlib $zlib_version)"
echo "$out"
