#include "tools/sst/block_iterator.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "compression/coding.h"
#include "tests/tools/sst/synthetic_sst.h"
#include "tools/sst/block_handle.h"
#include "tools/sst/data_block_builder.h"
#include "tools/sst/index_block.h"

namespace rockpool::sst {
namespace {

using KVs = std::vector<std::pair<std::string, std::string>>;

KVs MakeKvs(int n) {
  KVs kvs;
  for (int i = 0; i < n; ++i) {
    kvs.emplace_back(absl::StrFormat("user_key_%06d", i * 7), std::string(i % 13, 'v') + "!");
  }
  return kvs;
}

absl::StatusOr<KVs> ReadAll(std::string_view block) {
  absl::StatusOr<BlockIterator> it = BlockIterator::Create(block);
  if (!it.ok()) return it.status();
  KVs out;
  while (it->Next()) out.emplace_back(std::string(it->key()), std::string(it->value()));
  if (!it->status().ok()) return it->status();
  return out;
}

class BlockIteratorTest : public testing::TestWithParam<std::tuple<int, bool, uint16_t>> {};

TEST_P(BlockIteratorTest, RoundTrip) {
  const auto [restart_interval, separated, hash_buckets] = GetParam();
  const KVs kvs = MakeKvs(100);
  DataBlockBuilder b(0, {restart_interval, false, separated});
  for (const auto& [k, v] : kvs) b.Add(k, v);
  const std::string block = sst_testing::WithEmptyHashIndex(b.Finish(), hash_buckets);
  absl::StatusOr<BlockIterator> it = BlockIterator::Create(block);
  ASSERT_TRUE(it.ok()) << it.status();
  EXPECT_EQ(it->layout().num_restarts, (100u + restart_interval - 1) / restart_interval);
  EXPECT_EQ(it->layout().has_hash_index, hash_buckets > 0);
  EXPECT_EQ(it->layout().separated_kv, separated);
  absl::StatusOr<KVs> got = ReadAll(block);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, kvs);
}

INSTANTIATE_TEST_SUITE_P(Layouts, BlockIteratorTest,
                         testing::Combine(testing::Values(1, 2, 16, 1000), testing::Bool(),
                                          testing::Values(uint16_t{0}, uint16_t{7})));

TEST(BlockIterator, EmptyBlock) {
  DataBlockBuilder b(0);
  absl::StatusOr<KVs> got = ReadAll(b.Finish());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(got->empty());
}

TEST(BlockIterator, MalformedFooters) {
  EXPECT_EQ(BlockIterator::Create("").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(BlockIterator::Create("abc").status().code(), absl::StatusCode::kDataLoss);
  std::string too_many_restarts;
  PutFixed32(&too_many_restarts, 1000);
  EXPECT_EQ(BlockIterator::Create(too_many_restarts).status().code(), absl::StatusCode::kDataLoss);
  std::string reserved;
  PutFixed32(&reserved, (1u << 30) | 0);
  EXPECT_EQ(BlockIterator::Create(reserved).status().code(), absl::StatusCode::kUnimplemented);
  std::string bad_hash;
  PutFixed16(&bad_hash, 50);  // 50 buckets that are not there
  PutFixed32(&bad_hash, (1u << 31) | 0);
  EXPECT_EQ(BlockIterator::Create(bad_hash).status().code(), absl::StatusCode::kDataLoss);
}

TEST(BlockIterator, TruncationsNeverReadOutside) {
  DataBlockBuilder b(0, {.restart_interval = 4});
  for (const auto& [k, v] : MakeKvs(20)) b.Add(k, v);
  const std::string block(b.Finish());
  // Chop the entry region at every length, keeping a valid footer: entries
  // must either parse or fail cleanly.
  const size_t footer = 4 * 5 + 4;  // 5 restarts + packed footer
  for (size_t cut = 0; cut + footer < block.size(); ++cut) {
    std::string chopped = block.substr(0, cut) + block.substr(block.size() - footer);
    absl::StatusOr<KVs> got = ReadAll(chopped);
    if (!got.ok()) {
      EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss);
    }
  }
}

TEST(BlockIterator, SharedLongerThanPreviousKey) {
  std::string block;
  PutVarint32(&block, 5);  // shared 5 with an empty previous key
  PutVarint32(&block, 1);
  PutVarint32(&block, 1);
  block += "kv";
  PutFixed32(&block, 0);
  PutFixed32(&block, 1);
  absl::StatusOr<KVs> got = ReadAll(block);
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(absl::StrContains(got.status().message(), "block offset 0")) << got.status();
}

// Index blocks with value delta encoding (format_version >= 4).
std::vector<BlockHandle> MakeHandles(int n) {
  std::vector<BlockHandle> hs;
  uint64_t offset = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t size = 100 + (i * 37) % 50;
    hs.push_back({offset, size});
    offset += size + kBlockTrailerSize;
  }
  return hs;
}

std::string IndexBlock(const std::vector<BlockHandle>& hs, int restart_interval, bool delta,
                       bool first_key) {
  DataBlockBuilder b(0, {restart_interval, delta});
  for (size_t i = 0; i < hs.size(); ++i) {
    std::string full, d;
    EncodeBlockHandle(hs[i], &full);
    if (i > 0) {
      PutVarsignedint64(&d,
                        static_cast<int64_t>(hs[i].size) - static_cast<int64_t>(hs[i - 1].size));
    }
    if (first_key) {
      PutLengthPrefixed(&full, "first" + std::to_string(i));
      PutLengthPrefixed(&d, "first" + std::to_string(i));
    }
    b.Add(absl::StrFormat("sep%05d", i), full, d);
  }
  return std::string(b.Finish());
}

class IndexBlockTest : public testing::TestWithParam<std::tuple<int, bool, bool>> {};

TEST_P(IndexBlockTest, DecodesHandles) {
  const auto [restart_interval, delta, first_key] = GetParam();
  const std::vector<BlockHandle> hs = MakeHandles(50);
  const std::string block = IndexBlock(hs, restart_interval, delta, first_key);
  std::vector<BlockHandle> got;
  std::vector<std::string> keys, first_keys;
  absl::Status s =
      ForEachIndexEntry(block, {.value_delta_encoded = delta, .has_first_key = first_key},
                        [&](const IndexEntryView& e) {
                          got.push_back(e.handle);
                          keys.emplace_back(e.key);
                          first_keys.emplace_back(e.first_internal_key);
                          return absl::OkStatus();
                        });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(got, hs);
  EXPECT_EQ(keys[49], "sep00049");
  EXPECT_EQ(first_keys[3], first_key ? "first3" : "");
}

INSTANTIATE_TEST_SUITE_P(Formats, IndexBlockTest,
                         testing::Combine(testing::Values(1, 4, 16), testing::Bool(),
                                          testing::Bool()));

TEST(IndexBlock, CallbackErrorStopsIteration) {
  const std::string block = IndexBlock(MakeHandles(10), 4, true, false);
  int calls = 0;
  absl::Status s =
      ForEachIndexEntry(block, {.value_delta_encoded = true}, [&](const IndexEntryView&) {
        return ++calls == 3 ? absl::CancelledError("stop") : absl::OkStatus();
      });
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(calls, 3);
}

TEST(IndexBlock, DeltaWithoutPreviousHandle) {
  // A first entry that claims to share bytes cannot be a delta.
  std::string block;
  PutVarint32(&block, 0);
  PutVarint32(&block, 2);
  block += "ab";
  EncodeBlockHandle({0, 10}, &block);
  PutFixed32(&block, 0);
  PutFixed32(&block, 1);
  // Valid as a one-entry block...
  EXPECT_TRUE(ForEachIndexEntry(block, {.value_delta_encoded = true}, [](const IndexEntryView&) {
                return absl::OkStatus();
              }).ok());
  // ...and a negative delta larger than the previous size is rejected.
  std::string bad;
  PutVarint32(&bad, 0);
  PutVarint32(&bad, 2);
  bad += "ab";
  EncodeBlockHandle({0, 10}, &bad);
  PutVarint32(&bad, 1);  // shares 1 byte -> delta
  PutVarint32(&bad, 1);
  bad += "c";
  PutVarsignedint64(&bad, -11);
  PutFixed32(&bad, 0);
  PutFixed32(&bad, 1);
  absl::Status s = ForEachIndexEntry(bad, {.value_delta_encoded = true},
                                     [](const IndexEntryView&) { return absl::OkStatus(); });
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
}

}  // namespace
}  // namespace rockpool::sst
