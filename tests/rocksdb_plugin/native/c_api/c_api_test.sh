#!/bin/bash
# compression_manager=rockpool through RocksDB's C API, in a program nobody
# rebuilt for rockpool (c_api_fill.c), with librockpool_native.so preloaded:
#   - without the object RocksDB ignores the id it cannot load (its default
#     for any unknown compression_manager): the built-in manager serves
#     the DB, and its LOG has no rockpool line;
#   - with it the object says it registered, the DB's LOG shows rockpool,
#     the DB reopens from its OPTIONS file and reads back;
#   - its data blocks equal the built-in manager's (same program, same data);
#   - the install's stock ldb and sst_dump read it without rockpool
#     (skipped when $ROCKPOOL_UPSTREAM_BIN has no such tools);
#   - loaded into a process whose RocksDB says it is another release, the
#     object registers nothing and says so in ROCKPOOL_NATIVE_STATS (stderr
#     stays quiet without ROCKPOOL_VERBOSE=1); RocksDB then does what it
#     does in the first case; the same for the same release from another
#     build (another rocksdb_build_date);
#   - with the interposer preloaded too and zlib blob files, the interposer
#     pools the blobs' contexts and the native face the SST files', each
#     reporting its own.
# Arguments: c_api_fill, data_blocks_equal, librockpool_native.so,
# libother_release.so, librockpool_interpose.so, libother_build.so.
set -euo pipefail
fill=$1 blocks_equal=$2 native=$(realpath "$3") other=$(realpath "$4") interpose=$(realpath "$5")
other_build=$(realpath "$6")
bin=${ROCKPOOL_UPSTREAM_BIN:-}
tmp=${TEST_TMPDIR:-$(mktemp -d)}
keys=20000
opts='compression_manager=rockpool;compression=kZlibCompression'
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. Not loaded: RocksDB ignores the unknown id, the built-in serves.
"$fill" "$tmp/unloaded" "$opts" "$keys" >/dev/null 2>"$tmp/unloaded.err" ||
  fail "not loaded: $(cat "$tmp/unloaded.err")"
! grep -q "rockpool active" "$tmp"/unloaded/LOG* || fail "rockpool in the LOG without the object"
echo "not loaded: RocksDB ignored the id; $(grep -m1 -o 'compression_manager=[^;]*' "$tmp"/unloaded/OPTIONS-* | tail -1) in the OPTIONS file"

# 2. Preloaded: registered, active in the LOG, reopened from OPTIONS.
ROCKPOOL_VERBOSE=1 ROCKPOOL_NATIVE_STATS="$tmp/stats" LD_PRELOAD="$native" \
  "$fill" "$tmp/pooled" "$opts" "$keys" 2>"$tmp/pooled.err" || fail "pooled run: $(cat "$tmp/pooled.err")"
grep -q "native face registered: compression_manager=rockpool" "$tmp/pooled.err" ||
  fail "no registration line on stderr: $(cat "$tmp/pooled.err")"
grep -q "native face registered" "$tmp/stats" || fail "no registration line in ROCKPOOL_NATIVE_STATS"
# LOG*: the reopen rotated the fill's LOG; the native face writes its line
# when it builds the first SST file, which the reopen does not.
grep -q "rockpool active:" "$tmp"/pooled/LOG* || fail "the LOG does not show rockpool"
# RocksDB serializes the manager with its options: compression_manager={id=rockpool;...}
grep -qE "compression_manager=(\{id=)?rockpool[;}]" "$tmp"/pooled/OPTIONS-* ||
  fail "the OPTIONS file does not name rockpool: $(grep -h compression_manager "$tmp"/pooled/OPTIONS-* | tail -1)"
echo "LOG: $(grep -h -m1 -o 'rockpool active:.*' "$tmp"/pooled/LOG* | head -1)"

# 3. The built-in manager on the same data: the same data blocks.
"$fill" "$tmp/builtin" 'compression=kZlibCompression' "$keys" >/dev/null
"$blocks_equal" "$tmp/pooled" "$tmp/builtin" || fail "data blocks differ from the built-in's"

# 4. Stock tools of the same install, no rockpool loaded.
if [[ -x $bin/ldb && -x $bin/sst_dump ]]; then
  scanned=$("$bin/ldb" --db="$tmp/pooled" scan | wc -l)
  [[ $scanned == "$keys" ]] || fail "stock ldb scanned $scanned of $keys keys"
  "$bin/sst_dump" --file="$tmp/pooled" --command=check >/dev/null || fail "stock sst_dump check"
  echo "stock ldb: $scanned keys; stock sst_dump --command=check: ok"
else
  echo "stock tools: skipped (no ldb and sst_dump in '$bin')"
fi
# 5. Another release running: nothing registered, the process as in 1.
ROCKPOOL_NATIVE_STATS="$tmp/stats" LD_PRELOAD="$other $native" \
  "$fill" "$tmp/mismatch" "$opts" "$keys" >/dev/null 2>"$tmp/mismatch.err" ||
  fail "another release: $(cat "$tmp/mismatch.err")"
! grep -q "native face" "$tmp/mismatch.err" || fail "stderr has a rockpool line without ROCKPOOL_VERBOSE=1"
! grep -q "rockpool active" "$tmp"/mismatch/LOG* || fail "rockpool in the LOG of another release"
# RocksDB dropped the id: the DB's OPTIONS file no longer names rockpool.
grep -q "^  compression_manager=nullptr$" "$tmp"/mismatch/OPTIONS-* ||
  fail "another release: $(grep -h compression_manager "$tmp"/mismatch/OPTIONS-* | tail -1)"
grep -q "native face not registered: the running RocksDB is 10.9.1; librockpool_native.so is built for RocksDB" \
  "$tmp/stats" || fail "no refusal line in ROCKPOOL_NATIVE_STATS: $(cat "$tmp/stats")"
"$blocks_equal" "$tmp/mismatch" "$tmp/builtin" >/dev/null || fail "another release: blocks differ from the built-in's"
echo "mismatch: $(grep -m1 'not registered' "$tmp/stats")"
# 5b. The same release from another build: refused the same way.
rm -f "$tmp/stats"
ROCKPOOL_NATIVE_STATS="$tmp/stats" LD_PRELOAD="$other_build $native" \
  "$fill" "$tmp/other_build" "$opts" "$keys" >/dev/null 2>"$tmp/other_build.err" ||
  fail "another build: $(cat "$tmp/other_build.err")"
! grep -q "rockpool active" "$tmp"/other_build/LOG* || fail "rockpool in the LOG of another build"
grep -q "native face not registered: the running RocksDB is [0-9.]* built 2001-01-01 00:00:00, another build;" \
  "$tmp/stats" || fail "no refusal line for another build: $(cat "$tmp/stats")"
"$blocks_equal" "$tmp/other_build" "$tmp/builtin" >/dev/null || fail "another build: blocks differ from the built-in's"
echo "another build: $(grep -m1 'not registered' "$tmp/stats")"

# 6. Both objects: blob files through the interposer, SSTs through the face.
blob_opts="$opts;enable_blob_files=true;min_blob_size=100;blob_compression_type=kZlibCompression"
LD_PRELOAD="$interpose $native" ROCKPOOL_OPTIONS=max_idle_per_key=8 \
  ROCKPOOL_STATS="$tmp/both.stats" ROCKPOOL_NATIVE_STATS="$tmp/both.native" \
  "$fill" "$tmp/both" "$blob_opts" "$keys" 2>"$tmp/both.err" >/dev/null ||
  fail "native face + interposer, blob files: $(cat "$tmp/both.err")"
ls "$tmp/both"/*.blob >/dev/null || fail "no blob files written"
# Each value is one blob, compressed once and read back once: the
# interposer's deflate and inflate leases are exactly the blobs (an SST
# block served by it too would add to them), the native face's are the SST
# files' blocks only (its deflate leases are far fewer than the blobs).
leases() { grep -o "$1=[0-9]*" "$2" | tail -1 | cut -d= -f2; }
for codec in deflate inflate; do
  n=$(leases "$codec" "$tmp/both.stats")
  [[ ${n:-0} == "$keys" ]] || fail "the interposer has ${n:-0} $codec leases for $keys blobs: $(cat "$tmp/both.stats")"
done
grep -q "event=close face=native" "$tmp/both.native" || fail "no native close report: $(cat "$tmp/both.native")"
native_deflate=$(grep -m1 'event=close' "$tmp/both.native" | grep -o 'deflate=[0-9]*' | tail -1 | cut -d= -f2)
((${native_deflate:-0} > 0 && ${native_deflate:-0} < keys / 10)) ||
  fail "the native face has ${native_deflate:-0} deflate leases (SST blocks only expected)"
echo "both, interposer: $(tail -1 "$tmp/both.stats")"
echo "both, native: $(grep -m1 'event=close' "$tmp/both.native")"
echo PASS
