// Run by node_zlib_test.py as `node -e "<this file>"`: zlib round trips in
// node (which carries its own zlib and exports it), printing a SHA-256 of
// every compressed output; throws (exit 1) if any round trip differs.
'use strict';
const zlib = require('zlib');
const crypto = require('crypto');

// ~4 MiB of deterministic, text-like data (compresses ~3-4x).
function data(n, seed) {
  const words = ['key', 'value', 'rocksdb', 'block', 'compaction', 'flush', 'level', 'zlib',
                 'deflate', 'inflate', 'pool', 'context', 'index', 'filter', 'sst', 'blob'];
  const out = Buffer.alloc(n);
  let x = seed >>> 0;
  let i = 0;
  while (i < n) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    const w = words[(x >>> 16) % words.length] + ((x >>> 8) % 1000) + ' ';
    i += out.write(w, i, 'latin1');
  }
  return out;
}
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex').slice(0, 32);
const input = data(4 << 20, 20);

function roundTrip(name, pack, unpack) {
  const packed = pack(input);
  const back = unpack(packed);
  if (!back.equals(input)) throw new Error(name + ': round trip differs');
  console.log(name + ' ' + packed.length + ' ' + sha(packed));
}

for (const level of [1, 6, 9]) {
  roundTrip('gzip/' + level, (b) => zlib.gzipSync(b, {level}), zlib.gunzipSync);
  roundTrip('deflate/' + level, (b) => zlib.deflateSync(b, {level}), zlib.inflateSync);
  roundTrip('deflateRaw/' + level, (b) => zlib.deflateRawSync(b, {level}), zlib.inflateRawSync);
}

// RocksDB's pattern: one raw stream (windowBits 14, memLevel 8) per 4 KiB
// block, 1024 blocks: 1024 deflateInit2/deflateEnd and inflateInit2/inflateEnd.
{
  const h = crypto.createHash('sha256');
  let bytes = 0;
  for (let off = 0; off < input.length; off += 4096) {
    const block = input.subarray(off, off + 4096);
    const packed = zlib.deflateRawSync(block, {windowBits: 14, memLevel: 8});
    const back = zlib.inflateRawSync(packed, {windowBits: 14});
    if (!back.equals(block)) throw new Error('block ' + off + ': round trip differs');
    h.update(packed);
    bytes += packed.length;
  }
  console.log('blocks ' + bytes + ' ' + h.digest('hex').slice(0, 32));
}

// Asynchronous (libuv's thread pool): 8 gzip jobs at once, then gunzip.
(async () => {
  const {promisify} = require('util');
  const gzip = promisify(zlib.gzip);
  const gunzip = promisify(zlib.gunzip);
  const parts = [];
  for (let k = 0; k < 8; ++k) parts.push(input.subarray(k << 19, (k + 1) << 19));
  const packed = await Promise.all(parts.map((p) => gzip(p)));
  const back = await Promise.all(packed.map((p) => gunzip(p)));
  back.forEach((b, k) => { if (!b.equals(parts[k])) throw new Error('async ' + k + ' differs'); });
  console.log('async ' + packed.map(sha).join(','));
})().catch((e) => { console.error(e); process.exit(1); });
