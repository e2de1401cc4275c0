// Compaction mode's disk-use check (tools/sst_replay/scratch_room.h): how
// many copies it keeps at once, statvfs on a real directory, and the lines
// it prints. The binary's refusal is in sst_replay_test.cc.
#include "tools/sst_replay/scratch_room.h"

#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rockpool::replay {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kMiB = 1024 * 1024;

TEST(ScratchRoomTest, KeepsTheReferenceAndTheLatestCopyPlusTheCompactionsOutput) {
  const ScratchRoom room = PlanScratchRoom(100 * kMiB, 10, /*keep_tmp=*/false, 1000 * kMiB);
  EXPECT_EQ(room.copies_at_once, 2);
  EXPECT_EQ(room.need_bytes, 300 * kMiB);
  EXPECT_TRUE(CheckScratchRoom(room, "/scratch").ok());
}

TEST(ScratchRoomTest, KeepTmpKeepsEveryRunsCopy) {
  const ScratchRoom room = PlanScratchRoom(100 * kMiB, 10, /*keep_tmp=*/true, 1000 * kMiB);
  EXPECT_EQ(room.copies_at_once, 10);
  EXPECT_EQ(room.need_bytes, 1100 * kMiB);
  EXPECT_FALSE(CheckScratchRoom(room, "/scratch").ok());
}

TEST(ScratchRoomTest, OneRunKeepsOneCopy) {
  EXPECT_EQ(PlanScratchRoom(kMiB, 1, false, 0).copies_at_once, 1);
}

TEST(ScratchRoomTest, RefusalIsOneLineNamingTheDirectoryAndTheWayOut) {
  const ScratchRoom room = PlanScratchRoom(100 * kMiB, 10, false, 50 * kMiB);
  const absl::Status s = CheckScratchRoom(room, "/small");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  const std::string m(s.message());
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_THAT(m, HasSubstr("needs up to 300 MiB in /small"));
  EXPECT_THAT(m, HasSubstr("only 50.0 MiB is free"));
  EXPECT_THAT(m, HasSubstr("--tmpdir"));
}

TEST(ScratchRoomTest, TheLineSaysWhatItWillUse) {
  const ScratchRoom room = PlanScratchRoom(10 * kMiB, 10, false, 2048 * kMiB);
  EXPECT_EQ(DescribeScratchRoom(room, "/tmp/sst_replay.x"),
            "compaction mode copies 10.0 MiB per run into /tmp/sst_replay.x (10 runs, 2 copies "
            "at once): needs up to 30.0 MiB, 2.00 GiB free");
}

TEST(ScratchRoomTest, FreeBytesAsksTheFileSystem) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  absl::StatusOr<uint64_t> free = FreeBytes(tmp != nullptr ? tmp : "/tmp");
  ASSERT_TRUE(free.ok()) << free.status();
  EXPECT_GT(*free, 0u);
  absl::StatusOr<uint64_t> missing = FreeBytes("/nonexistent/sst_replay");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("/nonexistent/sst_replay: cannot read the free space"));
}

}  // namespace
}  // namespace rockpool::replay
