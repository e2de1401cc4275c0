// LZ4 and LZ4HC blocks on pooled streams: byte-identical to stock RocksDB's
// per-block streams (with and without a dictionary, at every HC level, and
// after a pooled stream was used for other data), pooled streams as new as
// LZ4_createStream's, and every bad block a clean error.
#include "compression/lz4_block_codec.h"

#include <gtest/gtest.h>
#include <lz4.h>
#include <lz4hc.h>

#include <cstring>
#include <string>

#include "compression/block_codecs.h"
#include "compression/block_format.h"
#include "compression/coding.h"
#include "tests/compression/test_data.h"

namespace rockpool {
namespace {

using ::rockpool::testing::Incompressible;
using ::rockpool::testing::SemiCompressible;

// Stock RocksDB 7.8.3's LZ4_Compress / LZ4HC_Compress (util/compression.h):
// a new stream per block, freed after it.
std::string StockCompress(std::string_view in, const Lz4BlockOptions& o) {
  std::string out;
  PutVarint32(&out, static_cast<uint32_t>(in.size()));
  const size_t header = out.size();
  const int bound = LZ4_compressBound(static_cast<int>(in.size()));
  out.resize(header + static_cast<size_t>(bound));
  int n;
  if (o.high_compression) {
    LZ4_streamHC_t* stream = LZ4_createStreamHC();
    LZ4_resetStreamHC(stream, o.level == kRocksDbDefaultLevel ? 0 : o.level);
    if (!o.dictionary.empty()) {
      LZ4_loadDictHC(stream, o.dictionary.data(), static_cast<int>(o.dictionary.size()));
    }
    n = LZ4_compress_HC_continue(stream, in.data(), out.data() + header,
                                 static_cast<int>(in.size()), bound);
    LZ4_freeStreamHC(stream);
  } else {
    LZ4_stream_t* stream = LZ4_createStream();
    if (!o.dictionary.empty()) {
      LZ4_loadDict(stream, o.dictionary.data(), static_cast<int>(o.dictionary.size()));
    }
    n = LZ4_compress_fast_continue(stream, in.data(), out.data() + header,
                                   static_cast<int>(in.size()), bound, 1);
    LZ4_freeStream(stream);
  }
  EXPECT_GT(n, 0);
  out.resize(header + static_cast<size_t>(n));
  return out;
}

class Lz4BlockCodecTest : public ::testing::Test {
 protected:
  CompressionPools pools_;
  BlockCodecs codecs_{&pools_, size_t{4} << 20};
};

TEST_F(Lz4BlockCodecTest, EverySizeLevelAndDictionaryLikeStockOnOnePooledStreamEach) {
  const std::string dictionary = SemiCompressible(8192, 7);
  const size_t sizes[] = {0, 1, 100, 4096, 16384, 70000, size_t{1} << 20};
  const int hc_levels[] = {kRocksDbDefaultLevel, -3, 1, 3, 4, 9, 10, 12, 20};
  int blocks = 0;
  for (size_t size : sizes) {
    for (const std::string& input : {SemiCompressible(size, size + 1),
                                     Incompressible(size, size + 2), std::string(size, 'a')}) {
      for (bool with_dict : {false, true}) {
        Lz4BlockOptions o;
        o.dictionary = with_dict ? std::string_view(dictionary) : std::string_view();
        std::string ours, back;
        ASSERT_TRUE(codecs_.lz4().Compress(input, o, &ours).ok());
        ASSERT_EQ(ours, StockCompress(input, o)) << "lz4, " << size << " bytes, dict " << with_dict;
        ASSERT_TRUE(codecs_.lz4().Decompress(ours, o.dictionary, &back).ok());
        ASSERT_EQ(back, input);
        o.high_compression = true;
        for (int level : hc_levels) {
          o.level = level;
          ASSERT_TRUE(codecs_.lz4().Compress(input, o, &ours).ok());
          ASSERT_EQ(ours, StockCompress(input, o))
              << "lz4hc level " << level << ", " << size << " bytes, dict " << with_dict;
          if (!with_dict) {  // through the type byte's dispatch, too
            ASSERT_TRUE(codecs_.Decompress(0x5, ours, nullptr, &back).ok());
            ASSERT_EQ(back, input);
          }
          ASSERT_TRUE(codecs_.lz4().Decompress(ours, o.dictionary, &back).ok());
          ASSERT_EQ(back, input);
          ++blocks;
        }
      }
    }
  }
  // Every block ran on the one stream of each pool, reset between uses.
  const CompressionPoolsStats s = pools_.stats();
  EXPECT_EQ(s.lz4.created, 1u);
  EXPECT_EQ(s.lz4hc.created, 1u);
  EXPECT_EQ(s.lz4hc.reused + s.lz4hc.created, static_cast<uint64_t>(blocks));
  EXPECT_EQ(s.lz4.library.bytes_allocated, static_cast<uint64_t>(LZ4_sizeofState()));
  EXPECT_EQ(s.lz4hc.library.bytes_allocated, static_cast<uint64_t>(LZ4_sizeofStateHC()));
  EXPECT_EQ(s.lz4.idle_bytes, static_cast<uint64_t>(LZ4_sizeofState()));
}

TEST_F(Lz4BlockCodecTest, APooledStreamIsAsNewAsLz4CreateStreamMakesOne) {
  // Dirty both streams with a dictionary and data, then give them back.
  const std::string input = SemiCompressible(65536, 3), dictionary = SemiCompressible(4096, 4);
  Lz4BlockOptions o;
  o.dictionary = dictionary;
  std::string out;
  ASSERT_TRUE(codecs_.lz4().Compress(input, o, &out).ok());
  o.high_compression = true;
  o.level = 12;
  ASSERT_TRUE(codecs_.lz4().Compress(input, o, &out).ok());

  auto lz4 = pools_.lz4().Acquire(Lz4Key{});
  ASSERT_TRUE(lz4.ok());
  LZ4_stream_t* fresh = LZ4_createStream();
  EXPECT_EQ(std::memcmp(&(*lz4)->get()->internal_donotuse, &fresh->internal_donotuse,
                        sizeof(fresh->internal_donotuse)),
            0);
  LZ4_freeStream(fresh);

  auto hc = pools_.lz4hc().Acquire(Lz4Key{});
  ASSERT_TRUE(hc.ok());
  LZ4_streamHC_t* fresh_hc = LZ4_createStreamHC();
  EXPECT_EQ(std::memcmp(&(*hc)->get()->internal_donotuse, &fresh_hc->internal_donotuse,
                        sizeof(fresh_hc->internal_donotuse)),
            0);
  LZ4_freeStreamHC(fresh_hc);
  EXPECT_EQ(pools_.stats().lz4.created, 1u);
  EXPECT_EQ(pools_.stats().lz4hc.created, 1u);
}

TEST_F(Lz4BlockCodecTest, BadBlocksAreCleanErrors) {
  const std::string input = SemiCompressible(20000, 9), dictionary = SemiCompressible(4096, 10);
  Lz4BlockOptions o;
  std::string block, out;
  ASSERT_TRUE(codecs_.lz4().Compress(input, o, &block).ok());

  // A prefix that claims one byte more or less than the payload holds.
  for (int delta : {-1, 1}) {
    std::string wrong;
    PutVarint32(&wrong, static_cast<uint32_t>(static_cast<int>(input.size()) + delta));
    auto prefix = ParseBlockPrefix(block, size_t{1} << 20);
    ASSERT_TRUE(prefix.ok());
    wrong.append(prefix->payload);
    absl::Status s = codecs_.lz4().Decompress(wrong, {}, &out);
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << delta << ": " << s;
    EXPECT_TRUE(out.empty());
  }
  // Truncated and garbled payloads.
  absl::Status s = codecs_.lz4().Decompress(block.substr(0, block.size() / 2), {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  std::string garbled = block;
  for (size_t i = 4; i < garbled.size(); i += 7) garbled[i] = static_cast<char>(0xff);
  s = codecs_.lz4().Decompress(garbled, {}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(out.empty());
  // A block that needs its dictionary, decoded without it, is not the input.
  o.dictionary = dictionary;
  const std::string repeated = dictionary.substr(0, 3000) + dictionary.substr(500, 3000);
  ASSERT_TRUE(codecs_.lz4().Compress(repeated, o, &block).ok());
  s = codecs_.lz4().Decompress(block, {}, &out);
  EXPECT_TRUE(!s.ok() || out != repeated);
  ASSERT_TRUE(codecs_.lz4().Decompress(block, dictionary, &out).ok());
  EXPECT_EQ(out, repeated);
  // A size prefix over the codec's limit is refused before allocating.
  std::string huge;
  PutVarint32(&huge, uint32_t{64} << 20);
  huge += "x";
  s = codecs_.lz4().Decompress(huge, {}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("lz4 block"), std::string::npos) << s;
}

TEST_F(Lz4BlockCodecTest, OutputThatDoesNotFitIsFailedPrecondition) {
  const std::string input = Incompressible(4096, 11);
  std::string dst(1000, '\0');
  auto lease = pools_.lz4().Acquire(Lz4Key{});
  ASSERT_TRUE(lease.ok());
  auto n = Lz4BlockCodec::CompressInto((*lease)->get(), input, {}, dst.data(), dst.size());
  EXPECT_EQ(n.status().code(), absl::StatusCode::kFailedPrecondition) << n.status();
  auto hc = pools_.lz4hc().Acquire(Lz4Key{});
  ASSERT_TRUE(hc.ok());
  n = Lz4BlockCodec::CompressHcInto((*hc)->get(), 9, input, {}, dst.data(), dst.size());
  EXPECT_EQ(n.status().code(), absl::StatusCode::kFailedPrecondition) << n.status();
}

}  // namespace
}  // namespace rockpool
