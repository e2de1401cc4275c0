// Read-path benchmark of the native face (RocksDB >= 10.4): random point
// lookups on an SST-only DB whose blocks do not fit the block cache, so
// nearly every Get decompresses one 4 KiB data block.
//
//   native_read_bench --mode=create --codec=zstd|zlib --db=DIR [--keys=N]
//       writes N keys (~150 B compressible values) with the built-in
//       compression manager, flushes and compacts to one level;
//   native_read_bench --mode=stock|pooled --codec=... --db=DIR [--reads=R]
//       opens DIR with the built-in manager (stock) or
//       compression_manager=rockpool (pooled), warms up, then runs R random
//       Gets in rockpool_native_read_loop() and prints one line:
//       cpu_ns_per_read (process CPU time of the loop / R), thread CPU,
//       wall time, and the pool's counters (pooled).
//
// Only rockpool_native_read_loop() is measured: for callgrind,
//   valgrind --tool=callgrind --collect-atstart=no
//     --toggle-collect=rockpool_native_read_loop native_read_bench ...
// counts exactly the R Gets (divide the total Ir by reads=).
// --statistics adds RocksDB's tickers (blocks decompressed per read); it costs CPU, so the timed
// runs leave it off.
#include <time.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compression/compression_pools.h"
#include "rocksdb/advanced_compression.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb_plugin/native/rockpool_compression_manager.h"

struct ReadResult {
  uint64_t found = 0;
  uint64_t value_bytes = 0;
};

namespace {

struct Flags {
  std::string mode;
  std::string codec = "zstd";
  std::string db;
  uint64_t keys = 200000;
  uint64_t reads = 200000;
  uint64_t warmup = 20000;
  uint64_t cache_bytes = 1 << 20;
  uint64_t seed = 301;
  bool statistics = false;
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "native_read_bench: %s\n"
               "usage: native_read_bench --mode=create|stock|pooled --codec=zstd|zlib --db=DIR\n"
               "  [--keys=N] [--reads=R] [--warmup=W] [--cache_bytes=B] [--seed=S] "
               "[--statistics]\n",
               why);
  std::exit(2);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* name, std::string* out) {
      const std::string prefix = std::string("--") + name + "=";
      if (arg.compare(0, prefix.size(), prefix) != 0) return false;
      *out = arg.substr(prefix.size());
      return true;
    };
    auto number = [&](const char* name, uint64_t* out) {
      std::string v;
      if (!value(name, &v)) return false;
      char* end = nullptr;
      *out = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0') Usage(("bad number: " + arg).c_str());
      return true;
    };
    if (value("mode", &f.mode) || value("codec", &f.codec) || value("db", &f.db) ||
        number("keys", &f.keys) || number("reads", &f.reads) || number("warmup", &f.warmup) ||
        number("cache_bytes", &f.cache_bytes) || number("seed", &f.seed)) {
      continue;
    }
    if (arg == "--statistics") {
      f.statistics = true;
      continue;
    }
    Usage(("unknown argument: " + arg).c_str());
  }
  if (f.mode != "create" && f.mode != "stock" && f.mode != "pooled") Usage("bad --mode");
  if (f.codec != "zstd" && f.codec != "zlib") Usage("bad --codec");
  if (f.db.empty()) Usage("--db is required");
  if (f.keys == 0) Usage("--keys must be > 0");
  return f;
}

void Check(const rocksdb::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "native_read_bench: %s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%016" PRIu64, i);
  return buf;
}

// ~100-200 B of words from a small vocabulary: compresses about 3x, like
// the text-ish values db_bench's --compression_ratio=0.5 stands in for.
std::string Value(std::mt19937_64& rng) {
  static const char* const kWords[] = {
      "alpha", "bravo",  "charlie", "delta", "echo",   "foxtrot",  "golf",    "hotel",
      "india", "juliet", "kilo",    "lima",  "mike",   "rockpool", "block",   "cache",
      "zstd",  "zlib",   "sst",     "level", "column", "family",   "compact", "flush"};
  constexpr size_t kNumWords = sizeof(kWords) / sizeof(kWords[0]);
  const size_t target = 100 + rng() % 101;
  std::string v;
  v.reserve(target + 16);
  while (v.size() < target) {
    v += kWords[rng() % kNumWords];
    v += (rng() % 8 == 0) ? std::to_string(rng() % 100000) : " ";
  }
  v.resize(target);
  return v;
}

rocksdb::Options DbOptions(const Flags& f, std::shared_ptr<rocksdb::Cache> cache,
                           std::shared_ptr<rocksdb::CompressionManager> manager) {
  rocksdb::Options options;
  const rocksdb::CompressionType type =
      f.codec == "zstd" ? rocksdb::kZSTD : rocksdb::kZlibCompression;
  options.compression = type;
  options.bottommost_compression = type;
  options.compression_manager = std::move(manager);
  options.max_open_files = -1;  // every table reader opened (and its index read) at DB open
  rocksdb::BlockBasedTableOptions table;
  table.block_size = 4096;
  table.block_cache = std::move(cache);
  // Index and filter blocks live in the table readers, not in the 1 MiB
  // cache: the cache holds data blocks only, and a miss is one data block.
  table.cache_index_and_filter_blocks = false;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

int Create(const Flags& f) {
  rocksdb::Options options = DbOptions(f, rocksdb::NewLRUCache(8 << 20), nullptr);
  options.create_if_missing = true;
  options.error_if_exists = true;
  options.write_buffer_size = 64 << 20;
  std::unique_ptr<rocksdb::DB> db;
  Check(rocksdb::DB::Open(options, f.db, &db), "open for create");
  std::mt19937_64 rng(f.seed);
  std::vector<uint64_t> order(f.keys);
  for (uint64_t i = 0; i < f.keys; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  rocksdb::WriteOptions wo;
  wo.disableWAL = true;
  for (uint64_t i : order) Check(db->Put(wo, Key(i), Value(rng)), "put");
  Check(db->Flush(rocksdb::FlushOptions()), "flush");
  rocksdb::CompactRangeOptions cro;
  cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  Check(db->CompactRange(cro, nullptr, nullptr), "compact");
  std::string sst_bytes;
  db->GetProperty("rocksdb.total-sst-files-size", &sst_bytes);
  std::printf("created db=%s codec=%s keys=%" PRIu64 " sst_bytes=%s\n", f.db.c_str(),
              f.codec.c_str(), f.keys, sst_bytes.c_str());
  Check(db->Close(), "close");
  return 0;
}

uint64_t Nanos(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

ReadResult ReadKeys(rocksdb::DB* db, const std::vector<std::string>& keys, size_t begin,
                    size_t end) {
  ReadResult r;
  rocksdb::ReadOptions ro;
  rocksdb::PinnableSlice value;
  for (size_t i = begin; i < end; ++i) {
    value.Reset();
    const rocksdb::Status s = db->Get(ro, db->DefaultColumnFamily(), keys[i], &value);
    if (s.ok()) {
      ++r.found;
      r.value_bytes += value.size();
    }
  }
  return r;
}

}  // namespace

// The measured part, by name for callgrind's --toggle-collect.
extern "C" __attribute__((noinline)) void rockpool_native_read_loop(
    rocksdb::DB* db, const std::vector<std::string>* keys, size_t begin, size_t end,
    ReadResult* out) {
  *out = ReadKeys(db, *keys, begin, end);
}

namespace {

int Read(const Flags& f) {
  std::shared_ptr<rocksdb::CompressionManager> manager;
  if (f.mode == "pooled") {
    rocksdb::ConfigOptions config;
    Check(rocksdb::CompressionManager::CreateFromString(config, "rockpool", &manager),
          "compression_manager=rockpool");
  }
  std::shared_ptr<rocksdb::Cache> cache = rocksdb::NewLRUCache(f.cache_bytes);
  rocksdb::Options options = DbOptions(f, cache, manager);
  if (f.statistics) options.statistics = rocksdb::CreateDBStatistics();
  // A plain read-write open (OpenForReadOnly of a compacted DB would take
  // CompactedDBImpl's shortcut Get); nothing is written, nothing compacts.
  options.disable_auto_compactions = true;
  std::unique_ptr<rocksdb::DB> db;
  Check(rocksdb::DB::Open(options, f.db, &db), "open");

  // All random keys drawn before anything is measured; the same sequence
  // (seed) in every process, whatever the mode.
  std::mt19937_64 rng(f.seed + 1);
  const size_t total = f.warmup + f.reads;
  std::vector<std::string> keys;
  keys.reserve(total);
  for (size_t i = 0; i < total; ++i) keys.push_back(Key(rng() % f.keys));

  const ReadResult warm = ReadKeys(db.get(), keys, 0, f.warmup);
  const uint64_t decompressed0 =
      f.statistics ? options.statistics->getTickerCount(rocksdb::NUMBER_BLOCK_DECOMPRESSED) : 0;

  ReadResult r;
  const uint64_t wall0 = Nanos(CLOCK_MONOTONIC);
  const uint64_t proc0 = Nanos(CLOCK_PROCESS_CPUTIME_ID);
  const uint64_t thread0 = Nanos(CLOCK_THREAD_CPUTIME_ID);
  rockpool_native_read_loop(db.get(), &keys, f.warmup, total, &r);
  const uint64_t thread1 = Nanos(CLOCK_THREAD_CPUTIME_ID);
  const uint64_t proc1 = Nanos(CLOCK_PROCESS_CPUTIME_ID);
  const uint64_t wall1 = Nanos(CLOCK_MONOTONIC);

  const double n = static_cast<double>(f.reads == 0 ? 1 : f.reads);
  std::printf("mode=%s codec=%s reads=%" PRIu64 " found=%" PRIu64 " value_bytes=%" PRIu64
              " cpu_ns_per_read=%.1f thread_cpu_ns_per_read=%.1f wall_ns_per_read=%.1f",
              f.mode.c_str(), f.codec.c_str(), f.reads, r.found, r.value_bytes,
              static_cast<double>(proc1 - proc0) / n, static_cast<double>(thread1 - thread0) / n,
              static_cast<double>(wall1 - wall0) / n);
  if (f.statistics) {
    std::printf(
        " decompressed_per_read=%.3f",
        static_cast<double>(options.statistics->getTickerCount(rocksdb::NUMBER_BLOCK_DECOMPRESSED) -
                            decompressed0) /
            n);
  }
  if (auto* rp = dynamic_cast<rockpool::native::RockpoolCompressionManager*>(manager.get())) {
    const rockpool::CompressionPoolsStats s = rp->pools()->stats();
    const rockpool::PoolStats& p = f.codec == "zstd" ? s.zstd_decompress : s.inflate;
    std::printf(" pool_created=%" PRIu64 " pool_reused=%" PRIu64 " pool_idle=%" PRIu64, p.created,
                p.reused, p.idle);
  }
  std::printf(" warmup_found=%" PRIu64 "\n", warm.found);
  if (r.found != f.reads || warm.found != f.warmup) {
    std::fprintf(stderr, "native_read_bench: some keys were not found\n");
    return 1;
  }
  Check(db->Close(), "close");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = ParseFlags(argc, argv);
  return f.mode == "create" ? Create(f) : Read(f);
}
