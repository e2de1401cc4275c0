// tools/process/usage.h's measured window: memory touched before the window
// counts in the image's peak RSS, and not in the window's when the kernel
// restarted the peak; bytes written count writes to any file.
#include "tools/process/usage.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"

namespace rockpool::process {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

TEST(UsageTest, WindowPeakLeavesOutWhatCameBefore) {
  const int64_t before = PeakRssBytes();
  ASSERT_GT(before, 0);
  // 256 MiB touched and unmapped before the window: resident, then gone.
  const size_t size = 256 * kMiB;
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  std::memset(p, 1, size);
  ASSERT_GE(PeakRssBytes(), before + 200 * kMiB);
  ASSERT_EQ(::munmap(p, size), 0);

  // VmHWM is the kernel's approximate count (per-CPU counters, synced
  // lazily): bounds with room to spare, not equalities.
  const ProcessSnapshot start = OpenWindow();
  EXPECT_GT(start.wall_ns, 0);
  EXPECT_GE(ImagePeakRssBytes(), before + 200 * kMiB);
  if (PeakRssIsWindowOnly()) {
    EXPECT_LT(PeakRssBytes(), ImagePeakRssBytes() - 200 * kMiB);
  } else {
    EXPECT_GE(PeakRssBytes(), before + 200 * kMiB);
  }
}

TEST(UsageTest, BytesWrittenCountsWrites) {
  const int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const int64_t before = BytesWritten();
  ASSERT_GE(before, 0);
  static char block[64 * 1024];
  for (int i = 0; i < 16; ++i) ASSERT_EQ(::write(fd, block, sizeof(block)), ssize_t{sizeof(block)});
  ::close(fd);
  EXPECT_GE(BytesWritten() - before, kMiB);
}

}  // namespace
}  // namespace rockpool::process
