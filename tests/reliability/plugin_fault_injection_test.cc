// Allocation fault walks through RocksDB: Debian's librocksdb.so (7.8.3),
// unmodified, with the legacy face interposed (this binary depends on
// //rocksdb_plugin:legacy), writes, flushes, compacts and reads a small DB
// with zstd or zlib, with exactly the Nth allocation of rockpool's counting
// allocator failing, for every N the clean run made. Each run must:
//   - return OK with every value read back intact, or a RocksDB error
//     (never a wrong value, never a crash);
//   - leave no context leased once the DB is closed (except zstd DCtxs in
//     RocksDB's process-wide DCtx cache), and the pools' books balanced;
//   - hold no library byte after TrimIdle() beyond those leases.
// Under --config=asan, LeakSanitizer checks that nothing leaked.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compression/counting_allocator.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/options.h"
#include "tests/compression/test_data.h"
#include "tests/reliability/fault_walk.h"

namespace rockpool::reliability {
namespace {

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

std::string Value(int i) {
  std::string v = absl::StrCat("value-", i, "-");
  while (v.size() < 300) absl::StrAppend(&v, "rockpool ", i % 97, " block ");
  return v;
}

absl::Status FromRocksDb(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat("rocksdb ", what, ": ", s.ToString()));
}

// A wrong value or a lost key: what must never happen.
absl::Status WrongOutput(const std::string& what) {
  return absl::DataLossError("WRONG OUTPUT: " + what);
}

struct Codec {
  const char* name;
  rocksdb::CompressionType type;
};

class PluginFaultInjectionTest : public ::testing::TestWithParam<Codec> {
 protected:
  void SetUp() override { legacy::Configure(RockpoolOptions{}); }
  void TearDown() override {
    RockpoolOptions off;
    off.enabled = false;
    legacy::Configure(off);
  }

  static rocksdb::Options DbOptions() {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.compression = GetParam().type;
    options.disable_auto_compactions = true;  // deterministic: explicit flushes
    options.max_background_jobs = 2;
    rocksdb::BlockBasedTableOptions table;
    table.block_size = 1024;  // many blocks, many codec calls
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    return options;
  }

  static constexpr int kKeys = 2000;

  // Writes kKeys keys in four flushed files and compacts them into one.
  static absl::Status Write(rocksdb::DB* db) {
    for (int file = 0; file < 4; ++file) {
      for (int i = file; i < kKeys; i += 4) {
        if (absl::Status s = FromRocksDb(db->Put(rocksdb::WriteOptions(), Key(i), Value(i)), "put");
            !s.ok()) {
          return s;
        }
      }
      if (absl::Status s = FromRocksDb(db->Flush(rocksdb::FlushOptions()), "flush"); !s.ok())
        return s;
    }
    return FromRocksDb(db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr),
                       "compact");
  }

  // Reads every key back; a lost key or a wrong value is WrongOutput.
  static absl::Status Read(rocksdb::DB* db) {
    for (int i = 0; i < kKeys; ++i) {
      std::string got;
      const rocksdb::Status s = db->Get(rocksdb::ReadOptions(), Key(i), &got);
      if (s.IsNotFound()) return WrongOutput("lost " + Key(i));
      if (!s.ok()) return FromRocksDb(s, "get");
      if (got != Value(i)) return WrongOutput("wrong value for " + Key(i));
    }
    return absl::OkStatus();
  }

  // Opens `dir`, optionally writes, reads everything, closes.
  static absl::Status Cycle(const std::string& dir, bool write) {
    rocksdb::DB* raw = nullptr;
    if (absl::Status s = FromRocksDb(rocksdb::DB::Open(DbOptions(), dir, &raw), "open"); !s.ok())
      return s;
    std::unique_ptr<rocksdb::DB> db(raw);
    if (write) {
      if (absl::Status s = Write(db.get()); !s.ok()) return s;
    }
    if (absl::Status s = Read(db.get()); !s.ok()) return s;
    return FromRocksDb(db->Close(), "close");
  }

  void CheckAfterClose(const std::string& name) {
    const legacy::OutstandingLeases out = legacy::Outstanding();
    EXPECT_EQ(out.zstd_compress, 0) << name;
    EXPECT_EQ(out.deflate, 0) << name;
    EXPECT_EQ(out.inflate, 0) << name;
    const CompressionPoolsStats all = legacy::Stats();
    // RocksDB 7.8.3 keeps zstd DCtxs in a process-wide cache until exit.
    EXPECT_EQ(static_cast<int64_t>(all.zstd_decompress.in_use), out.zstd_decompress) << name;
    for (const auto& [pool, s] :
         {std::pair{"zstd_compress", &all.zstd_compress},
          std::pair{"zstd_decompress", &all.zstd_decompress}, std::pair{"deflate", &all.deflate},
          std::pair{"inflate", &all.inflate}}) {
      EXPECT_EQ(s->created, s->destroyed + s->idle + s->in_use) << name << " " << pool;
      if (s->in_use == 0) {
        EXPECT_EQ(static_cast<uint64_t>(s->library.bytes_live), s->idle_bytes)
            << name << " " << pool;
      }
    }
    legacy::TrimIdle();
    const CompressionPoolsStats trimmed = legacy::Stats();
    for (const PoolStats* s :
         {&trimmed.zstd_compress, &trimmed.zstd_decompress, &trimmed.deflate, &trimmed.inflate}) {
      EXPECT_EQ(s->idle, 0u) << name;
      EXPECT_EQ(s->idle_bytes, 0u) << name;
      if (s->in_use == 0) {
        EXPECT_EQ(s->library.bytes_live, 0) << name;
      }
    }
  }

  // Walks every allocation of Cycle(write), or of Cycle(read only) on a DB
  // written beforehand without injection.
  void WalkCycle(bool write) {
    ASSERT_EQ(legacy::CurrentMode(), RockpoolOptions::Mode::kPool);
    const legacy::Interposition how = legacy::CheckInterposition();
    ASSERT_TRUE(how.zstd && how.zlib) << how.ToString();
    const std::string name = absl::StrCat(GetParam().name, write ? " write+read" : " read");
    int attempt = 0;
    std::string dir;
    if (!write) {
      dir = ::rockpool::testing::FreshTestPath(absl::StrCat("plugin_fault_read_", GetParam().name));
      ASSERT_TRUE(Cycle(dir, /*write=*/true).ok());
    }
    uint64_t errors_seen = 0;
    auto setup = [&] {
      legacy::TrimIdle();  // every attempt starts with cold pools
      if (write)
        dir = ::rockpool::testing::FreshTestPath(
            absl::StrCat("plugin_fault_", GetParam().name, "_", attempt++));
    };
    auto op = [&] { return Cycle(dir, write); };
    auto check = [&](uint64_t n, const absl::Status& s) {
      if (n == 0) {
        EXPECT_TRUE(s.ok()) << s;
      } else if (!s.ok()) {
        ++errors_seen;
        // A RocksDB error is fine; a wrong or lost value is not.
        EXPECT_NE(s.code(), absl::StatusCode::kDataLoss) << s;
      }
      CheckAfterClose(absl::StrCat(name, ", allocation ", n));
      if (write) {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
      }
    };
    const WalkReport report =
        WalkAllocationFailures(absl::StrCat("RocksDB 7.8.3 + rockpool, ", name), setup, op, check);
    // zstd reads allocate nothing here: RocksDB 7.8.3 keeps the DCtxs it got
    // (from the pool) in a process-wide cache, filled while the DB was
    // written and compacted.
    if (write || GetParam().type != rocksdb::kZSTD) {
      EXPECT_GT(report.allocations, 0u) << "no allocation went through rockpool's pools";
    }
    std::printf("%s: %llu RocksDB errors\n", name.c_str(),
                static_cast<unsigned long long>(errors_seen));
  }
};

// Reading: context creation failures fall back to the library; a zlib window
// that cannot be allocated mid-inflate is a RocksDB read error.
TEST_P(PluginFaultInjectionTest, EveryAllocationOfReadingADb) { WalkCycle(/*write=*/false); }

// Writing, flushing, compacting and reading. zlib only: RocksDB 7.8.3's
// ZSTD_Compress does not check ZSTD_isError() on the compression result and
// resizes its output to the error code, which throws std::length_error and
// aborts the process on any zstd compression error (with or without
// rockpool; a failed workspace allocation is one). See tests/RELIABILITY.md.
TEST_P(PluginFaultInjectionTest, EveryAllocationOfAWriteFlushCompactReadCycle) {
  if (GetParam().type == rocksdb::kZSTD) {
    GTEST_SKIP() << "RocksDB 7.8.3 aborts on zstd compression errors (see tests/RELIABILITY.md)";
  }
  WalkCycle(/*write=*/true);
}

INSTANTIATE_TEST_SUITE_P(Codecs, PluginFaultInjectionTest,
                         ::testing::Values(Codec{"zstd", rocksdb::kZSTD},
                                           Codec{"zlib", rocksdb::kZlibCompression}),
                         [](const ::testing::TestParamInfo<Codec>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace rockpool::reliability
