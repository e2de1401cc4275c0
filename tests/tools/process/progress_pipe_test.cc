#include "tools/process/progress_pipe.h"

#include <fcntl.h>
#include <unistd.h>

#include <vector>

#include "gtest/gtest.h"

namespace rockpool::process {
namespace {

TEST(ProgressPipeTest, TheParentReadsWhatTheChildReported) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  ProgressSink sink(fds[1]);
  sink.Report(0.25);
  sink.Report(0.2501);           // the same per mille: not written again
  sink.Report(1.5);              // clamped to the whole
  sink.Report(-1);               // and to nothing
  ProgressSink(-1).Report(0.5);  // a disabled sink writes nowhere
  ::close(fds[1]);
  std::vector<double> read;
  FollowProgress(fds[0], [&](double fraction) { read.push_back(fraction); });
  ::close(fds[0]);
  EXPECT_EQ(read, (std::vector<double>{0.25, 1.0, 0.0}));
}

}  // namespace
}  // namespace rockpool::process
