// tools/process/preload_list.h: the object put first in an LD_PRELOAD
// value, as sst_replay --allocator gives its children and `rockpool run`
// its program.
#include "tools/process/preload_list.h"

#include <string_view>

#include "gtest/gtest.h"

namespace rockpool::process {
namespace {

TEST(PreloadListTest, PutsTheObjectFirst) {
  EXPECT_EQ(PreloadFirst("/a/je.so", ""), "/a/je.so");
  EXPECT_EQ(PreloadFirst("/a/je.so", "/u/mine.so:/u/other.so"), "/a/je.so:/u/mine.so:/u/other.so");
  EXPECT_EQ(PreloadFirst("", "/u/mine.so"), "/u/mine.so");
  // Already preloaded by the user: first, once.
  EXPECT_EQ(PreloadFirst("/a/je.so", "/u/mine.so /a/je.so"), "/a/je.so:/u/mine.so");
}

TEST(PreloadListTest, DropsWhatItIsTold) {
  EXPECT_EQ(PreloadFirst("/a/rp.so", "/old/rp.so::/u/mine.so",
                         [](std::string_view e) { return e == "/old/rp.so"; }),
            "/a/rp.so:/u/mine.so");
}

}  // namespace
}  // namespace rockpool::process
