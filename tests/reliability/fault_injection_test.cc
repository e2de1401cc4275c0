// Allocation fault walks over representative operations of every pool: lease
// creation, compress, decompress (with and without dictionaries), zlib/gzip
// streams, Trim/SetOptions/ReleaseExpired, a mixed sequence and an SST read
// through the codecs. For every allocation N an operation makes, a run with
// exactly allocation N failing must:
//   - return ResourceExhausted, or OK with a verified result; never crash;
//   - leave the pool's books balanced (created == destroyed + idle,
//     in_use == 0, library bytes_live == idle_bytes);
//   - leave the pool usable (the operation then succeeds) and empty after
//     Trim() (no library byte held); LeakSanitizer (--config=asan) checks
//     that nothing else leaked.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compression/block_codecs.h"
#include "tests/compression/test_data.h"
#include "tests/reliability/fault_walk.h"
#include "tools/sst/codec_decompressor.h"
#include "tools/sst/sst_file.h"

namespace rockpool::reliability {
namespace {

using ::rockpool::testing::Incompressible;
using ::rockpool::testing::SemiCompressible;

// A wrong result is reported with a code no allocation failure produces.
absl::Status WrongOutput(const std::string& what) {
  return absl::DataLossError("WRONG OUTPUT: " + what);
}

class FaultInjectionTest : public ::testing::Test {
 protected:
  // Fresh pools and codecs for an attempt.
  void Fresh(PoolOptions options = {}) {
    codecs_.reset();
    pools_ = std::make_unique<CompressionPools>(options);
    codecs_ = std::make_unique<BlockCodecs>(pools_.get(), size_t{16} << 20);
  }

  uint64_t FailedAllocations() const { return pools_->stats().Total().library.failed; }

  // Walks `op`; `setup` (optional) runs before each attempt on fresh pools.
  WalkReport Walk(const std::string& name, const std::function<absl::Status()>& op,
                  const std::function<void()>& warm = nullptr, PoolOptions options = {}) {
    uint64_t failed_before = 0;
    auto setup = [&] {
      Fresh(options);
      if (warm) warm();
      failed_before = FailedAllocations();
    };
    auto check = [&](uint64_t n, const absl::Status& s) {
      if (n > 0) {
        // The walk really failed the one allocation it meant to.
        EXPECT_EQ(FailedAllocations() - failed_before, 1u);
        EXPECT_TRUE(s.ok() || s.code() == absl::StatusCode::kResourceExhausted) << s;
      }
      ExpectBalanced(pools_->stats());
      // Still usable: the same operation succeeds without injection.
      const absl::Status again = op();
      EXPECT_TRUE(again.ok()) << "after the failure: " << again;
      ExpectBalanced(pools_->stats());
      ExpectEmptyAfterTrim(*pools_);
    };
    WalkReport report = WalkAllocationFailures(name, setup, op, check);
    EXPECT_GT(report.allocations, 0u) << name << " made no allocation to fail";
    return report;
  }

  std::unique_ptr<CompressionPools> pools_;
  std::unique_ptr<BlockCodecs> codecs_;
};

TEST_F(FaultInjectionTest, LeaseCreationInEveryPool) {
  Walk("zstd compress lease", [&] { return pools_->zstd_compress().Acquire(ZstdKey{}).status(); });
  Walk("zstd decompress lease",
       [&] { return pools_->zstd_decompress().Acquire(ZstdKey{}).status(); });
  const DeflateKey deflate_keys[] = {{6, -14, 8, Z_DEFAULT_STRATEGY},
                                     {9, 31, 8, Z_DEFAULT_STRATEGY},
                                     {1, 15, 9, Z_RLE},
                                     {4, -9, 1, Z_HUFFMAN_ONLY}};
  for (const DeflateKey& key : deflate_keys) {
    Walk("deflate lease wb " + std::to_string(key.window_bits) + " level " +
             std::to_string(key.level),
         [&] { return pools_->deflate().Acquire(key).status(); });
  }
  for (int wb : {-15, -9, 15, 31, 47}) {
    Walk("inflate lease wb " + std::to_string(wb),
         [&] { return pools_->inflate().Acquire(InflateKey{wb}).status(); });
  }
}

TEST_F(FaultInjectionTest, ZstdCompressAndDecompress) {
  const std::string small = SemiCompressible(2000, 1);
  const std::string large = SemiCompressible(300000, 2);
  auto round_trip = [&](const std::string& input, int level, const ZstdDictionary* dict) {
    std::string block, back;
    if (absl::Status s = codecs_->zstd().Compress(input, level, dict, &block); !s.ok()) return s;
    if (absl::Status s = codecs_->zstd().Decompress(block, dict, &back); !s.ok()) return s;
    return back == input ? absl::OkStatus() : WrongOutput("zstd round trip");
  };
  Walk("zstd round trip, cold pools", [&] { return round_trip(large, 3, nullptr); });
  // Warm contexts sized for a small block must grow for a large one.
  Walk(
      "zstd round trip, warm pools, growth", [&] { return round_trip(large, 19, nullptr); },
      [&] { ASSERT_TRUE(round_trip(small, 1, nullptr).ok()); });
  auto dict = ZstdDictionary::Create(SemiCompressible(4096, 3), 5);
  ASSERT_TRUE(dict.ok());
  Walk("zstd round trip with dictionary", [&] { return round_trip(small, 5, dict->get()); });
  Walk("zstd incompressible", [&] { return round_trip(Incompressible(70000, 4), 1, nullptr); });
}

TEST_F(FaultInjectionTest, ZlibBlocksAndStreams) {
  const std::string input = SemiCompressible(100000, 5);
  const std::string dict = SemiCompressible(4096, 6);
  auto block_round_trip = [&](ZlibBlockOptions o) {
    std::string block, back;
    if (absl::Status s = codecs_->zlib().Compress(input, o, &block); !s.ok()) return s;
    if (absl::Status s = codecs_->zlib().Decompress(block, o.dictionary, &back); !s.ok()) return s;
    return back == input ? absl::OkStatus() : WrongOutput("zlib block round trip");
  };
  Walk("zlib block, RocksDB defaults", [&] { return block_round_trip(ZlibBlockOptions{}); });
  Walk("zlib block with dictionary", [&] {
    ZlibBlockOptions o;
    o.level = 9;
    o.window_bits = -15;
    o.dictionary = dict;
    return block_round_trip(o);
  });
  for (int wb : {15, 31}) {
    // DecompressStream inflates in pieces (Z_NO_FLUSH), so zlib allocates
    // its sliding window lazily, in the middle of the operation.
    Walk("zlib stream wb " + std::to_string(wb), [&, wb] {
      std::string framed, back;
      if (absl::Status s = codecs_->zlib().CompressStream(input, 6, wb, &framed); !s.ok()) return s;
      if (absl::Status s = codecs_->zlib().DecompressStream(framed, 47, input.size(), &back);
          !s.ok()) {
        return s;
      }
      return back == input ? absl::OkStatus() : WrongOutput("zlib stream round trip");
    });
  }
}

TEST_F(FaultInjectionTest, TrimSetOptionsAndExpiryBetweenLeases) {
  PoolOptions options;
  options.max_retained_per_key = 4;
  Walk(
      "trim / set options / expiry sequence",
      [&]() -> absl::Status {
        for (int round = 0; round < 3; ++round) {
          {
            auto a = pools_->zstd_compress().Acquire(ZstdKey{});
            auto b = pools_->zstd_decompress().Acquire(ZstdKey{});
            auto c = pools_->deflate().Acquire(DeflateKey{});
            auto d = pools_->inflate().Acquire(InflateKey{});
            for (const absl::Status& s : {a.status(), b.status(), c.status(), d.status()}) {
              if (!s.ok()) return s;
            }
          }
          switch (round) {
            case 0:
              pools_->Trim();
              break;
            case 1: {
              PoolOptions one = options;
              one.max_retained_per_key = 1;
              one.idle_timeout = absl::ZeroDuration();
              pools_->SetOptions(one);
              pools_->ReleaseExpired();
              break;
            }
            default:
              pools_->SetOptions(options);
              break;
          }
        }
        return absl::OkStatus();
      },
      nullptr, options);
}

TEST_F(FaultInjectionTest, MixedSequenceOfOperations) {
  PoolOptions options;
  options.max_retained_per_key = 2;
  Walk(
      "mixed sequence of 40 operations",
      [&]() -> absl::Status {
        std::mt19937 rng(42);
        for (int i = 0; i < 40; ++i) {
          const std::string input = SemiCompressible(500 + rng() % 30000, static_cast<uint64_t>(i));
          std::string block, back;
          absl::Status s;
          switch (rng() % 4) {
            case 0:
              s = codecs_->zstd().Compress(input, 1 + static_cast<int>(rng() % 9), nullptr, &block);
              if (s.ok()) s = codecs_->zstd().Decompress(block, nullptr, &back);
              break;
            case 1: {
              ZlibBlockOptions o;
              o.level = 1 + static_cast<int>(rng() % 9);
              o.window_bits = -9 - static_cast<int>(rng() % 7);
              s = codecs_->zlib().Compress(input, o, &block);
              if (s.ok()) s = codecs_->zlib().Decompress(block, {}, &back);
              break;
            }
            case 2:
              s = codecs_->zlib().CompressStream(input, 6, 31, &block);
              if (s.ok()) s = codecs_->zlib().DecompressStream(block, 31, input.size(), &back);
              break;
            default:
              pools_->Trim();
              continue;
          }
          if (!s.ok()) return s;
          if (back != input) return WrongOutput("mixed op " + std::to_string(i));
        }
        return absl::OkStatus();
      },
      nullptr, options);
}

// Regression: an allocation failure inside zstd's compression (its
// workspace) was reported as Internal, and one inside inflateSetDictionary
// (a raw stream's window) as Internal "(-4)": both are ResourceExhausted.
TEST_F(FaultInjectionTest, OutOfMemoryInsideTheLibrariesIsResourceExhausted) {
  ScopedFaultInjection scoped;
  Fresh();
  const std::string input = SemiCompressible(50000, 7);
  {
    auto lease = pools_->zstd_compress().Acquire(ZstdKey{});  // CCtx made: 1 allocation
    ASSERT_TRUE(lease.ok());
    std::string block;
    AllocationFaultInjectorForTesting::FailNthAllocation(1);  // the workspace
    const absl::Status s = ZstdBlockCodec::CompressWith((*lease)->get(), input, 3, nullptr, &block);
    AllocationFaultInjectorForTesting::Disarm();
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  }
  {
    const std::string dict = SemiCompressible(4096, 8);
    ZlibBlockOptions o;
    o.dictionary = dict;
    std::string block, back;
    ASSERT_TRUE(codecs_->zlib().Compress(input, o, &block).ok());
    auto lease = pools_->inflate().Acquire(InflateKey{-15});  // state made
    ASSERT_TRUE(lease.ok());
    AllocationFaultInjectorForTesting::FailNthAllocation(1);  // the window
    const absl::Status s =
        ZlibBlockCodec::DecompressWith((*lease)->get(), block, dict, 1 << 20, &back);
    AllocationFaultInjectorForTesting::Disarm();
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  }
  ExpectBalanced(pools_->stats());
  ExpectEmptyAfterTrim(*pools_);
}

std::string ReadSeed(const std::string& name) {
  const std::string path = "tests/fuzz/corpus/sst_reader/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_F(FaultInjectionTest, SstReadThroughThePooledCodecs) {
  for (const char* name : {"zstd-dict.sst", "zlib-dict.sst", "zstd-partitioned.sst"}) {
    const std::string image = ReadSeed(name);
    ASSERT_FALSE(image.empty());
    Walk(std::string("read every block of ") + name, [&]() -> absl::Status {
      sst::SstReadOptions options;
      options.decompressor = sst::MakeBlockCodecsDecompressor(codecs_.get());
      absl::StatusOr<std::unique_ptr<sst::SstFile>> file =
          sst::SstFile::OpenFromBuffer(image, options);
      if (!file.ok()) return file.status();
      absl::StatusOr<std::vector<sst::BlockHandle>> handles = (*file)->DataBlockHandles();
      if (!handles.ok()) return handles.status();
      for (const sst::BlockHandle& h : *handles) {
        absl::StatusOr<std::string> contents = (*file)->ReadBlockContents(h);
        if (!contents.ok()) return contents.status();
      }
      return handles->empty() ? WrongOutput("no data blocks") : absl::OkStatus();
    });
  }
}

}  // namespace
}  // namespace rockpool::reliability
