#!/usr/bin/env bash
# Installs the Debian packages rockpool needs, by need: the base (no
# argument) is what the build, the main job (`bazel run //tools/sst_replay`)
# and `bazel test //...` use; each CI stage of tests/RELIABILITY.md that needs
# more has a stage of its own, installed right before that stage runs.
#
#   bash tools/setup.sh                  the base
#   bash tools/setup.sh --stage=NAME     one stage (NAME[,NAME...], or repeat the flag)
#   bash tools/setup.sh --list [...]     print the packages, install nothing
#
# Stages (each lists everything it needs, so it also works alone; what the
# base already installed is simply present):
#   base       Bazel 4.2.3 (bazel-bootstrap, rules_java), g++, pkg-config,
#              Debian's RocksDB (7.8.3; 9.10 on Debian 13) (librocksdb-dev; it brings the -dev
#              packages of its codecs: gflags, snappy, lz4, bz2) and its
#              tools (db_bench/ldb/sst_dump: preload_tools_test), zstd, zlib,
#              xxhash, Abseil, GoogleTest/GoogleMock, Benchmark, python3 and
#              python-is-python3 (Bazel 4.2.3's Python stub runs `env python`:
#              py_test/py_binary, e.g. //tests:doc_paths_test, need it),
#              python3-scipy (bench/felt_stats.py's Mann-Whitney U test, which
#              //tests/bench's unit tests run), git
#              (the doc tests list the repository's files with it), the
#              zstd command (system_tools_test runs it under the
#              interposer), and
#              the allocators users run RocksDB under (libjemalloc2 5.3.0,
#              libtcmalloc-minimal4): sst_replay's --allocator and its
#              end-to-end test preload them. Also Debian's abseil source
#              package of the installed libabsl-dev's version, unpacked with
#              its patches (dpkg-dev, the deb-src entry below) into
#              $ROCKPOOL_CACHE/src/abseil-VERSION (default
#              /var/cache/rockpool/src): the preloaded objects link Abseil
#              statically, compiled from it as PIC by Bazel (@absl_pic,
#              third_party/system_libs.bzl), since Debian's libabsl_*.a are
#              not PIC. Fetched once per installed version
#   format     tests/format/run.sh (the clang_format stage): clang-format-14
#              (the version whose output .clang-format was applied with), git
#   db_stress  tests/db_stress/build.sh: librocksdb-dev and the codec -dev
#              packages it links, dpkg-dev (`apt-get source`), plus a deb-src
#              entry in a sources file of its own
#              (/etc/apt/sources.list.d/rockpool-deb-src.sources; the binary
#              lists stay as they are) and the source index it needs
#   myrocks    tests/myrocks/run.sh: mariadb-server mariadb-plugin-rocksdb
#              sysbench (g++: the malloc counter, when no built one is found)
#   private_codecs  tests/private_codecs/build.sh: gcc, dpkg-dev (`apt-get
#              source libzstd zlib`), libzstd-dev and zlib1g-dev (the versions
#              whose sources it fetches), plus the deb-src entry above and the
#              source index for libzstd and zlib
#   package    tools/package.sh and tests/package/run.sh: dpkg-dev
#              (dpkg-shlibdeps), lintian, man-db and groff-base (`man -l` of
#              the pages), rocksdb-tools (db_bench through the installed package)
#   debian13   tools/debian13.sh and tests/debian13/run.sh: debootstrap, which
#              makes the Debian 13 root (inside it, this script installs
#              Debian 13's packages of the base, db_stress, myrocks and
#              package stages)
#   clang      clang-14 and its sanitizer runtimes: the tsan and fuzz stages
#   bench      bench/felt_cost.py (bench/README.md): the allocators above,
#              python3-matplotlib (its heatmap and RSS pictures),
#              python3-scipy (its U test),
#              rocksdb-tools (Debian's db_bench), and for --myrocks
#              mariadb-server mariadb-plugin-rocksdb sysbench; not used by CI
#   upstream   building RocksDB >= 10.4 from source for the native face
#              (rocksdb_plugin/README.md): its optional codecs and gflags,
#              liburing, jemalloc; not used by CI
#   all        every stage above
#
# Quiet and idempotent: one line per step; apt's output goes to a log file
# that is printed (and the script exits non-zero) only when a step fails. A
# run with nothing missing does no network work: `apt-get update` runs once,
# first, only when something must be installed (or the deb-src entry was
# just written, or its source index is missing), and a source tree is
# fetched only when the cache has none for the installed version. Needs root
# only then (or, for the source tree alone, a writable $ROCKPOOL_CACHE).
set -euo pipefail

declare -A STAGE_PACKAGES=(
  [base]="bazel-bootstrap bazel-rules-java g++ pkg-config dpkg-dev
          librocksdb-dev rocksdb-tools
          libzstd-dev zlib1g-dev liblz4-dev libxxhash-dev libabsl-dev
          libgtest-dev libgmock-dev libbenchmark-dev
          python3 python-is-python3 python3-scipy git zstd
          libjemalloc2 libtcmalloc-minimal4"
  [bench]="rocksdb-tools libjemalloc2 libtcmalloc-minimal4 python3 python3-matplotlib
           python3-scipy mariadb-server mariadb-plugin-rocksdb sysbench"
  [db_stress]="g++ librocksdb-dev libgflags-dev libsnappy-dev liblz4-dev libbz2-dev
               libzstd-dev zlib1g-dev dpkg-dev"
  [myrocks]="mariadb-server mariadb-plugin-rocksdb sysbench g++"
  [private_codecs]="gcc dpkg-dev libzstd-dev zlib1g-dev"
  [package]="dpkg-dev lintian man-db groff-base rocksdb-tools"
  [clang]="clang-14 libclang-rt-14-dev"
  [format]="clang-format-14 git"
  [debian13]="debootstrap"
  [upstream]="g++ make pkg-config libabsl-dev libzstd-dev zlib1g-dev
              libgflags-dev libsnappy-dev liblz4-dev libbz2-dev liburing-dev libjemalloc-dev"
)
STAGE_ORDER=(base format db_stress myrocks private_codecs package debian13 clang bench upstream)

# The distribution (/etc/os-release): Debian 12 (bookworm, RocksDB 7.8.3) is
# what the lists above name; Debian 13 (trixie, RocksDB 9.10; run inside
# the root of tools/debian13.sh) renamed a few packages in its 64-bit time_t
# transition and ships another clang. Any other distribution is tried with
# Debian 12's names.
declare -A RENAMED=()
DISTRO=$( (. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}") || true)
case $DISTRO in
  trixie)
    RENAMED=(
      [libtcmalloc-minimal4]=libtcmalloc-minimal4t64
      [clang-14]=clang-19
      [libclang-rt-14-dev]=libclang-rt-19-dev
    )
    # gold, which Bazel's C++ toolchain picks when it is there (Debian 12's
    # binutils has it; Debian 13 ships it apart): the preloaded objects'
    # code order is a gold --section-ordering-file (rocksdb_plugin/legacy/BUILD.bazel),
    # a syntax error to Debian 13's ld.bfd.
    STAGE_PACKAGES[base]+=" binutils-gold"
    ;;
esac
SRCLIST=/etc/apt/sources.list.d/rockpool-deb-src.sources
# Source trees kept outside the clone (third_party/system_libs.bzl reads the
# same variable and default).
CACHE=${ROCKPOOL_CACHE:-/var/cache/rockpool}

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
fail() { echo "setup: $*" >&2; exit 1; }

stages=()
list_only=0
for arg in "$@"; do
  case "$arg" in
    --stage=*)
      IFS=',' read -r -a names <<<"${arg#--stage=}"
      for name in "${names[@]}"; do
        if [[ $name == all ]]; then
          stages+=("${STAGE_ORDER[@]}")
        elif [[ -n ${STAGE_PACKAGES[$name]+x} ]]; then
          stages+=("$name")
        else
          echo "setup: unknown stage '$name' (stages: ${STAGE_ORDER[*]} all)" >&2
          exit 2
        fi
      done
      ;;
    --list) list_only=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "setup: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
((${#stages[@]})) || stages=(base)

# The packages of the stages asked for, each once, in order.
declare -A seen=()
packages=()
want_deb_src=0
# The source packages a stage fetches, as "source:binary" pairs: the source
# index must offer the version the installed binary package was built from.
declare -A want_sources=()
# The source trees a stage unpacks into $CACHE/src, as "source:binary" pairs
# (each also in want_sources).
declare -A want_trees=()
for s in "${stages[@]}"; do
  case $s in
    base) want_deb_src=1; want_sources[abseil]=libabsl-dev; want_trees[abseil]=libabsl-dev ;;
    db_stress) want_deb_src=1; want_sources[rocksdb]=librocksdb-dev ;;
    private_codecs) want_deb_src=1; want_sources[libzstd]=libzstd-dev; want_sources[zlib]=zlib1g-dev ;;
  esac
  for p in ${STAGE_PACKAGES[$s]}; do
    p=${RENAMED[$p]:-$p}
    [[ -n ${seen[$p]+x} ]] && continue
    seen[$p]=1
    packages+=("$p")
  done
done
label=$(printf '%s\n' "${stages[@]}" | awk '!seen[$0]++' | paste -sd, -)

if ((list_only)); then
  echo "${packages[*]}"
  exit 0
fi

# --- what is missing (local: dpkg's database only) ------------------------------
declare -A installed=()
while IFS=$'\t' read -r name status; do
  [[ $status == *" ok installed" ]] && installed[$name]=1
done < <(dpkg-query -W -f='${Package}\t${Status}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for p in "${packages[@]}"; do
  [[ -n ${installed[$p]+x} ]] || missing+=("$p")
done

# --- the deb-src entry (db_stress, private_codecs) ---------------------------
# A deb-src twin of every Debian entry in the binary lists, in a file of its
# own. Third-party repositories are left out: they carry no rocksdb source and
# may be unreachable.
deb_src_entries() {
  if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    # deb822: each "Types: deb" stanza whose URI is Debian's, with its
    # URIs/Suites/Components/Signed-By, as "Types: deb-src".
    awk '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && uris ~ /debian/) {
          printf "%sTypes: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n", sep, uris, suites, comps
          if (signed != "") printf "Signed-By: %s\n", signed
          sep = "\n"
        }
        types = uris = suites = comps = signed = ""
      }
      /^[ \t]*$/ { flush(); next }
      /^#/ { next }
      /^Types:/      { sub(/^Types:[ \t]*/, "");      types = $0 }
      /^URIs:/       { sub(/^URIs:[ \t]*/, "");       uris = $0 }
      /^Suites:/     { sub(/^Suites:[ \t]*/, "");     suites = $0 }
      /^Components:/ { sub(/^Components:[ \t]*/, ""); comps = $0 }
      /^Signed-By:/  { sub(/^Signed-By:[ \t]*/, "");  signed = $0 }
      END { flush() }' /etc/apt/sources.list.d/debian.sources
  elif [[ -f /etc/apt/sources.list ]]; then
    # One-line format: "deb [opts] URI suite comps..." -> deb822 stanzas.
    awk '
      $1 == "deb" {
        i = 2; opts = ""
        if ($2 ~ /^\[/) { while ($i !~ /\]$/) { opts = opts " " $i; i++ } opts = opts " " $i; i++ }
        uri = $i; suite = $(i + 1); comps = ""
        for (j = i + 2; j <= NF; j++) comps = comps (comps == "" ? "" : " ") $j
        if (uri !~ /debian/) next
        signed = ""
        if (match(opts, /signed-by=[^] ]+/)) signed = substr(opts, RSTART + 10, RLENGTH - 10)
        printf "%sTypes: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n", sep, uri, suite, comps
        if (signed != "") printf "Signed-By: %s\n", signed
        sep = "\n"
      }' /etc/apt/sources.list
  fi
}
write_deb_src=0
deb_src=
if ((want_deb_src)); then
  deb_src=$(deb_src_entries)
  [[ -n $deb_src ]] || fail "no Debian entry in /etc/apt/sources.list{,.d/debian.sources} to derive a deb-src entry from"
  deb_src="# Written by rockpool tools/setup.sh (base, --stage=db_stress|private_codecs): source packages (apt-get source abseil, rocksdb, libzstd, zlib).
$deb_src"
  # Comments aside, an equal file is kept (no rewrite, no update).
  if ! [[ -f $SRCLIST ]] || [[ $(grep -v '^#' "$SRCLIST") != "$(grep -v '^#' <<<"$deb_src")" ]]; then
    write_deb_src=1
  fi
fi

# The source index must offer the version of each installed binary package a
# stage fetches the source of (db_stress uses RocksDB internals: another
# version would link or run wrongly; private_codecs compares its private
# copies with the system's). Prints the first missing "source version".
source_index_missing() {
  local src bin version
  for src in "${!want_sources[@]}"; do
    bin=${want_sources[$src]}
    version=$(dpkg-query -W -f='${source:Version}' "$bin" 2>/dev/null) || version=
    # grep without -q: an early exit would make apt-cache die of SIGPIPE,
    # which pipefail turns into a failure.
    if [[ -z $version ]] ||
       ! apt-cache showsrc "$src" 2>/dev/null | grep -x "Version: $version" >/dev/null; then
      echo "$src ${version:-?}"
      return 0
    fi
  done
}
source_index_ok() { [[ -z $(source_index_missing) ]]; }

need_source_index=0
if ((want_deb_src)) && ! ((write_deb_src)) && ! ((${#missing[@]})) && ! source_index_ok; then
  need_source_index=1
fi

# --- source trees in the cache (base: abseil) ---------------------------------
# $CACHE/src/<source>-<version>: the source package of the installed binary
# package's version (epoch left out), unpacked by `apt-get source` with
# Debian's patches applied. Complete once present: it is unpacked elsewhere
# and moved into place.
tree_version() {  # <source>: the installed binary package's source version
  local v
  v=$(dpkg-query -W -f='${source:Version}' "${want_trees[$1]}" 2>/dev/null) || v=
  echo "${v#*:}"
}
tree_dir() { echo "$CACHE/src/$1-$(tree_version "$1")"; }
trees_missing() {  # the sources whose tree is absent, one per line
  local src
  for src in "${!want_trees[@]}"; do
    if [[ -z $(tree_version "$src") || ! -d $(tree_dir "$src") ]]; then
      echo "$src"
    fi
  done
}
fetch_tree() {  # <source> <version> <dir>
  local src=$1 version=$2 dir=$3 tmp unpacked
  mkdir -p "${dir%/*}" || return 1
  tmp=$(mktemp -d "${dir%/*}/.fetch-$src.XXXXXX") || return 1
  # apt-get source unpacks into the current directory. As root, download as
  # root too: apt's _apt sandbox user cannot write there.
  local sandbox=()
  [[ $(id -u) -eq 0 ]] && sandbox=(-o APT::Sandbox::User=root)
  if ! (cd "$tmp" && apt-get "${APT_OPTS[@]}" "${sandbox[@]}" source "$src=$version"); then
    rm -rf "$tmp"
    return 1
  fi
  # The unpacked tree is the one directory (beside the .dsc and tarballs).
  unpacked=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
  if [[ -z $unpacked || $unpacked == *$'\n'* ]]; then
    echo "apt-get source $src=$version: expected one unpacked directory in $tmp"
    rm -rf "$tmp"
    return 1
  fi
  rm -rf "$dir"
  mv "$unpacked" "$dir"
  rm -rf "$tmp"
}

if ! ((${#missing[@]} || write_deb_src || need_source_index)) && [[ -z $(trees_missing) ]]; then
  trees=
  ((${#want_trees[@]})) && trees=", sources in $CACHE/src"
  echo "setup: $label: all ${#packages[@]} packages installed$trees"
  exit 0
fi
if [[ $(id -u) -ne 0 ]] && ((${#missing[@]} || write_deb_src || need_source_index)); then
  what=()
  ((${#missing[@]})) && what+=("missing packages: ${missing[*]}")
  ((write_deb_src)) && what+=("deb-src entry $SRCLIST")
  ((need_source_index)) && what+=("source index for ${!want_sources[*]} (apt-get update)")
  fail "$label: needs root for: $(IFS=';'; echo "${what[*]}")"
fi

# --- steps: one line each, apt's output in the log ----------------------------
log=$(mktemp "${TMPDIR:-/tmp}/rockpool-setup.XXXXXX.log")
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
# Wait for another apt/dpkg to finish instead of failing at once; no progress
# bars in the log.
APT_OPTS=(-q -o DPkg::Lock::Timeout=600 -o Dpkg::Use-Pty=0)

step() {  # step <description> <command...>
  local what=$1 start=$SECONDS status
  shift
  printf 'setup: %s ... ' "$what"
  echo "=== $what: $*" >>"$log"
  if "$@" >>"$log" 2>&1; then
    echo "ok ($((SECONDS - start)) s)"
  else
    status=$?
    echo "FAILED (exit $status)"
    {
      echo "setup: output of the failed step (from $log):"
      cat "$log"
      echo "setup: $what FAILED"
    } >&2
    trap - EXIT   # keep the log
    exit 1
  fi
}

if ((write_deb_src)); then
  step "writing $SRCLIST (deb-src entry)" bash -c 'printf "%s\n" "$1" >"$2"' _ "$deb_src" "$SRCLIST"
fi
if ((${#missing[@]} || write_deb_src || need_source_index)); then
  step "apt-get update" apt-get "${APT_OPTS[@]}" update
fi
if ((${#missing[@]})); then
  noun=packages; ((${#missing[@]} == 1)) && noun=package
  step "installing ${#missing[@]} $noun (${missing[*]})" \
    apt-get "${APT_OPTS[@]}" install -y --no-install-recommends "${missing[@]}"
fi
if ((want_deb_src)) && ! source_index_ok; then
  fail "apt has no source package $(source_index_missing) after apt-get update (deb-src entry: $SRCLIST)"
fi
for src in $(trees_missing); do
  version=$(tree_version "$src")
  [[ -n $version ]] || fail "${want_trees[$src]} is not installed: no version of $src to fetch"
  step "apt-get source $src=$version into $(tree_dir "$src")" \
    fetch_tree "$src" "$version" "$(tree_dir "$src")"
done
