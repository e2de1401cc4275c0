// sst_replay's re-blocking builder: blocks the reader parses, cut where
// RocksDB's FlushBlockBySizePolicy cuts them. The other layouts (separated
// values, value delta encoding) are read back in block_iterator_test.cc.
#include "tools/sst/data_block_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/sst/block_iterator.h"

namespace rockpool::sst {
namespace {

TEST(DataBlockBuilderTest, BuildsBlocksTheReaderParses) {
  DataBlockBuilder builder(4096);
  std::vector<std::pair<std::string, std::string>> added;
  for (int i = 0; i < 40; ++i) {
    std::string key = absl::StrCat("user/", 1000 + i, "/profile");
    std::string value(30 + i, static_cast<char>('a' + i % 26));
    ASSERT_FALSE(builder.IsFull(key, value));
    builder.Add(key, value);
    added.emplace_back(key, value);
  }
  const std::string block(builder.Finish());
  absl::StatusOr<BlockIterator> it = BlockIterator::Create(block);
  ASSERT_TRUE(it.ok()) << it.status();
  EXPECT_EQ(it->layout().num_restarts, 3u);  // every 16 entries
  size_t i = 0;
  while (it->Next()) {
    ASSERT_LT(i, added.size());
    EXPECT_EQ(it->key(), added[i].first);
    EXPECT_EQ(it->value(), added[i].second);
    ++i;
  }
  EXPECT_TRUE(it->status().ok()) << it->status();
  EXPECT_EQ(i, added.size());
}

TEST(DataBlockBuilderTest, CutsBlocksLikeRocksDbFlushPolicy) {
  DataBlockBuilder builder(1000);
  EXPECT_FALSE(builder.IsFull("k", std::string(5000, 'v')));  // empty block: never full
  builder.Add("k1", std::string(800, 'v'));
  // Over the 90% deviation limit (900) only if the next entry overflows.
  EXPECT_FALSE(builder.IsFull("k2", std::string(10, 'v')));
  builder.Add("k2", std::string(95, 'v'));
  EXPECT_TRUE(builder.IsFull("k3", std::string(200, 'v')));
  builder.Reset();
  EXPECT_TRUE(builder.empty());
}

}  // namespace
}  // namespace rockpool::sst
