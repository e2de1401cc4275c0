// How figures read: three significant digits, binary prefixes for sizes,
// decimal ones for counts, a unit each for times.
#include "tools/console/units.h"

#include "gtest/gtest.h"

namespace rockpool::console {
namespace {

TEST(UnitsTest, FormatsNumbers) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytes(869.0 * 1024 * 1024), "869 MiB");
  EXPECT_EQ(FormatCount(18), "18");
  EXPECT_EQ(FormatCount(26012), "26.0k");
  EXPECT_EQ(FormatNanos(1.52e9), "1.52 s");
  EXPECT_EQ(FormatNanos(596.1e6), "596.1 ms");
}

TEST(UnitsTest, FormatValuePicksTheUnitsFormat) {
  EXPECT_EQ(FormatValue(1536, Unit::kBytes), FormatBytes(1536));
  EXPECT_EQ(FormatValue(26012, Unit::kCount), FormatCount(26012));
  EXPECT_EQ(FormatValue(596.1e6, Unit::kNanos), FormatNanos(596.1e6));
  EXPECT_EQ(FormatValue(12.34, Unit::kRate), "12.3 MB/s");
  EXPECT_EQ(FormatValue(4, Unit::kRatio), "4.000x");
}

// A negative size (a saving that is a loss) scales like a positive one.
TEST(UnitsTest, NegativeSizesScaleToo) { EXPECT_EQ(FormatBytes(-1536), "-1.50 KiB"); }

}  // namespace
}  // namespace rockpool::console
