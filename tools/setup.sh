#!/usr/bin/env bash
# Installs every Debian package rockpool needs. Idempotent: installs only what
# is missing (after one `apt-get update`), so a second run on a set-up machine
# does no network work at all.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap            # Bazel 4.2.3, WORKSPACE mode, offline
  bazel-rules-java           # rules_java at /usr/share/bazel/rules/java
  g++ pkg-config
  librocksdb-dev rocksdb-tools   # RocksDB 7.8.3 (.so/.a) and db_bench/ldb/sst_dump
  libzstd-dev zlib1g-dev libxxhash-dev
  libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev
  libsnappy-dev liblz4-dev libbz2-dev libgflags-dev liburing-dev libjemalloc-dev
  clang-14 libclang-rt-14-dev    # libFuzzer and sanitizers
  python3
  dpkg-dev                       # apt-get source rocksdb: db_stress (tests/db_stress/build.sh)
  mariadb-server mariadb-plugin-rocksdb sysbench   # MyRocks stage (tests/myrocks/run.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing packages (${missing[*]}); run as root" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
