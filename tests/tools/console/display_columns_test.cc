// Table cells padded by the columns a terminal shows, not by bytes.
#include "tools/console/display_columns.h"

#include "gtest/gtest.h"

namespace rockpool::console {
namespace {

TEST(DisplayColumnsTest, CountsCodePointsNotBytes) {
  EXPECT_EQ(DisplayColumns(""), 0u);
  EXPECT_EQ(DisplayColumns("12.3 ms"), 7u);
  const std::string cell = "12.3 ms \u00b14%";  // "±" is two bytes in UTF-8
  EXPECT_EQ(cell.size(), 12u);
  EXPECT_EQ(DisplayColumns(cell), 11u);
}

TEST(DisplayColumnsTest, PadsToTheWidthInColumns) {
  EXPECT_EQ(PadColumns("\u00b14%", 5), "\u00b14%  ");
  EXPECT_EQ(DisplayColumns(PadColumns("\u00b14%", 5)), 5u);
  EXPECT_EQ(PadColumns("", 3), "   ");
}

TEST(DisplayColumnsTest, NeverCutsAWideCell) {
  EXPECT_EQ(PadColumns("stock", 5), "stock");
  EXPECT_EQ(PadColumns("pooled", 3), "pooled");
}

}  // namespace
}  // namespace rockpool::console
