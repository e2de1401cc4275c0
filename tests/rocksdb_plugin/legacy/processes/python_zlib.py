# Run by system_tools_test.py as `/usr/bin/python3 -c "<this file>" <input>`:
# zlib round trips through Python's zlib module (Debian's python3 links
# libz.so.1), printing a SHA-256 of every compressed output; exits 1 if any
# round trip differs.
import hashlib
import sys
import zlib

data = open(sys.argv[1], "rb").read()
sha = lambda b: hashlib.sha256(b).hexdigest()[:32]
failed = []


def check(name, packed, back, expected=data):
    if back != expected:
        failed.append(name)
    print(name, len(packed), sha(packed))


for level in (-1, 1, 6, 9):
    p = zlib.compress(data, level)
    check("compress/%d" % level, p, zlib.decompress(p))
for wbits, name in ((-15, "raw"), (31, "gzip"), (15, "zlib"), (-9, "raw9")):
    c = zlib.compressobj(6, zlib.DEFLATED, wbits)
    p = c.compress(data) + c.flush()
    d = zlib.decompressobj(wbits if wbits != -9 else -15)
    check("compressobj/" + name, p, d.decompress(p) + d.flush())
c = zlib.compressobj(9, zlib.DEFLATED, 15, 9, zlib.Z_FILTERED)
p = c.compress(data) + c.flush()
check("compressobj/9-9-filtered", p, zlib.decompress(p))
zdict = data[:32768]
c = zlib.compressobj(6, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY, zdict)
p = c.compress(data) + c.flush()
d = zlib.decompressobj(-15, zdict)
check("compressobj/zdict", p, d.decompress(p) + d.flush())
# Streaming with sync flushes, and copies of the stream (deflateCopy)
# flushed on their own.
c = zlib.compressobj(6)
parts = []
copies = hashlib.sha256()
for off in range(0, len(data), 65536):
    parts.append(c.compress(data[off:off + 65536]))
    if off % (4 * 65536) == 0:
        copies.update(c.copy().flush())
        parts.append(c.flush(zlib.Z_SYNC_FLUSH))
p = b"".join(parts) + c.flush()
check("stream", p, zlib.decompress(p))
print("copies", copies.hexdigest()[:32])
# RocksDB's pattern: one raw stream (windowBits -14, memLevel 8) per 4 KiB block.
h = hashlib.sha256()
n = 0
for off in range(0, len(data), 4096):
    block = data[off:off + 4096]
    c = zlib.compressobj(-1, zlib.DEFLATED, -14, 8, zlib.Z_DEFAULT_STRATEGY)
    p = c.compress(block) + c.flush()
    d = zlib.decompressobj(-14)
    if d.decompress(p) + d.flush() != block:
        failed.append("block %d" % off)
    h.update(p)
    n += len(p)
print("blocks", n, h.hexdigest()[:32])
print("crc32", zlib.crc32(data), "adler32", zlib.adler32(data))
if failed:
    print("round trips differ:", ", ".join(failed), file=sys.stderr)
    sys.exit(1)
