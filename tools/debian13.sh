#!/usr/bin/env bash
# Runs a command in a Debian 13 (trixie) root made from Debian's archive: the
# second platform rockpool is built and tested on (RocksDB 9.10, g++ 14,
# Abseil 20240722), from Debian's packages alone.
#
#   bash tools/debian13.sh [--] COMMAND [ARG...]   run COMMAND in the root
#   bash tools/debian13.sh --make                  make the root, run nothing
#   bash tools/debian13.sh --path                  print the root's directory
#
# The root is made once with `debootstrap --variant=minbase trixie` from the
# Debian archive the machine's apt already uses (the first Debian URI of
# /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list) and kept
# outside any clone: $ROCKPOOL_CACHE/trixie (default
# /var/cache/rockpool/trixie). A later run finds it complete and reuses it.
#
# COMMAND runs as root in the chroot, in a copy of this clone's files (tracked
# and untracked, less what .gitignore leaves out; a git repository of its
# own, every file added) at /build/rockpool: the
# clone itself is never written to, and a fixed path keeps Bazel's output
# base there (~/.cache/bazel in the root) warm from one run to the next, like
# its disk cache (~/.cache/rockpool/bazel-disk in the root, .bazelrc). What
# is installed inside (tools/setup.sh) stays in the root. /proc, /dev and
# /dev/pts are bound in a mount namespace of its own; they are unmounted when
# the command ends, fails or is interrupted, and a Bazel server the command
# started is shut down. One run at a time per root (a lock).
#
# Needs root (debootstrap, chroot, mounts); installs debootstrap when missing.
set -euo pipefail

CACHE=${ROCKPOOL_CACHE:-/var/cache/rockpool}
ROOT=$CACHE/trixie
SUITE=trixie
INSIDE=/build/rockpool
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

fail() { echo "debian13: $*" >&2; exit 1; }
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }

mode=run
case ${1:-} in
  --make) mode=make; shift ;;
  --path) echo "$ROOT"; exit 0 ;;
  -h|--help) usage; exit 0 ;;
  --) shift ;;
  -*) echo "debian13: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac
if [[ $mode == run ]] && (($# == 0)); then
  echo "debian13: no command given (see --help)" >&2
  exit 2
fi
[[ $(id -u) -eq 0 ]] || fail "needs root (debootstrap, chroot, mount)"

# Mounts live in a private mount namespace: the kernel drops them with the
# namespace whatever happens to this script; the trap below unmounts them
# first in the ordinary case.
if [[ -z ${ROCKPOOL_DEBIAN13_NS:-} ]]; then
  export ROCKPOOL_DEBIAN13_NS=1
  again=(--)
  [[ $mode == make ]] && again=(--make)
  exec unshare --mount --propagation private -- bash "$0" "${again[@]}" "$@"
fi


# The Debian archive's URI from apt's own configuration (not the security
# archive, which has no trixie suite of its own name).
archive_uri() {
  local f=/etc/apt/sources.list.d/debian.sources
  if [[ -f $f ]]; then
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /debian\/?$/) { print $i; exit } }' "$f"
  elif [[ -f /etc/apt/sources.list ]]; then
    awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\/.*debian\/?$/) { print $i; exit } }' \
      /etc/apt/sources.list
  fi
}

make_root() {
  [[ -f $ROOT/.rockpool-complete ]] && return 0
  local uri tmp start=$SECONDS
  uri=$(archive_uri)
  [[ -n $uri ]] || fail "no Debian archive URI in /etc/apt/sources.list{,.d/debian.sources}"
  if ! command -v debootstrap >/dev/null; then
    echo "debian13: installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600 install -y \
      --no-install-recommends debootstrap >/dev/null || fail "apt-get install debootstrap failed"
  fi
  tmp="$ROOT.partial"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  echo "debian13: debootstrap --variant=minbase $SUITE $ROOT (Debian's archive from apt's sources)"
  if ! debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
      "$SUITE" "$tmp" "$uri" >"$CACHE/trixie-debootstrap.log" 2>&1; then
    tail -20 "$CACHE/trixie-debootstrap.log" >&2
    fail "debootstrap failed (log: $CACHE/trixie-debootstrap.log)"
  fi
  # Name resolution for apt inside (the archive's host).
  cp -L /etc/resolv.conf "$tmp/etc/resolv.conf" 2>/dev/null || true
  # Installs inside never start services.
  printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
  chmod 755 "$tmp/usr/sbin/policy-rc.d"
  touch "$tmp/.rockpool-complete"
  rm -rf "$ROOT"
  mv "$tmp" "$ROOT"
  echo "debian13: root made in $((SECONDS - start)) s ($(du -sh "$ROOT" | cut -f1))"
}

mkdir -p "$CACHE"
exec 9>"$CACHE/trixie.lock"
flock 9
make_root
[[ $mode == make ]] && exit 0

mounted=()
cleanup() {
  local status=$? m i
  # A Bazel server the command left running (it would hold the root).
  if [[ -d $ROOT$INSIDE ]] && chroot "$ROOT" sh -c 'command -v bazel' >/dev/null 2>&1; then
    chroot "$ROOT" sh -c "cd $INSIDE && bazel shutdown" >/dev/null 2>&1 || true
  fi
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    m=${mounted[i]}
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bind() {  # <host path> <path in the root>
  mkdir -p "$ROOT$2"
  mount --bind "$1" "$ROOT$2"
  mounted+=("$ROOT$2")
}
bind /proc /proc
bind /dev /dev
bind /dev/pts /dev/pts
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true

# The clone's files, fresh: what git would commit from this work tree.
rm -rf "$ROOT$INSIDE"
mkdir -p "$ROOT$INSIDE"
if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$REPO" && git ls-files -z -co --exclude-standard |
    tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$ROOT$INSIDE"
else
  (cd "$REPO" && tar --exclude='./bazel-*' -cf - .) | tar -xf - -C "$ROOT$INSIDE"
fi
# A repository of its own, whose files are exactly these: the tests that
# list the repository's files (tests/doc_*_test.py) ask git.
git -C "$ROOT$INSIDE" init -q
git -C "$ROOT$INSIDE" add -A

cmd=$(printf '%q ' "$@")
chroot "$ROOT" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  ${FUZZ_SECONDS:+FUZZ_SECONDS=$FUZZ_SECONDS} \
  bash -c "cd $INSIDE && $cmd"
