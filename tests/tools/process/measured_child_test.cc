#include "tools/process/measured_child.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"

namespace rockpool::process {
namespace {

// Runs `script` under /bin/sh with a pipe as its fd 3; what it writes there.
std::string Output(ChildOptions options, const std::string& script, ChildUsage* usage) {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  options.argv = {"/bin/sh", "-c", script};
  options.fds.emplace_back(fds[1], 3);
  std::string out;
  absl::StatusOr<ChildUsage> u = RunMeasuredChild(options, [&] {
    ::close(fds[1]);
    char buf[256];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  });
  ::close(fds[0]);
  EXPECT_TRUE(u.ok()) << u.status();
  if (u.ok()) *usage = *u;
  return out;
}

TEST(MeasuredChildTest, MeasuresTheChildWhole) {
  ChildUsage usage;
  Output({}, "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; exit 7", &usage);
  ASSERT_TRUE(WIFEXITED(usage.status));
  EXPECT_EQ(WEXITSTATUS(usage.status), 7);
  EXPECT_GT(usage.cpu_ns, 0);
  EXPECT_GT(usage.wall_ns, 0);
  EXPECT_GT(usage.minor_faults, 0);
  EXPECT_GE(usage.major_faults, 0);
}

TEST(MeasuredChildTest, EnvironmentAsAsked) {
  ASSERT_EQ(::setenv("ROCKPOOL_MEASURED_CHILD_TEST", "set", 1), 0);
  ASSERT_EQ(::setenv("OTHER_MEASURED_CHILD_TEST", "kept", 1), 0);
  ASSERT_EQ(::setenv("LD_PRELOAD", "", 1), 0);
  ChildOptions options;
  options.unset_prefixes = {"ROCKPOOL_"};
  const std::string script =
      "printf '%s|%s|%s' \"${ROCKPOOL_MEASURED_CHILD_TEST-unset}\" "
      "\"$OTHER_MEASURED_CHILD_TEST\" \"$LD_PRELOAD\" >&3";
  ChildUsage usage;
  EXPECT_EQ(Output(options, script, &usage), "unset|kept|");
  // The object to preload goes first, the inherited entries after it.
  const std::string libz = "/lib/x86_64-linux-gnu/libz.so.1";
  ASSERT_EQ(::access(libz.c_str(), R_OK), 0);
  ASSERT_EQ(::setenv("LD_PRELOAD", "libm.so.6", 1), 0);
  options.preload = libz;
  EXPECT_EQ(Output(options, script, &usage), "unset|kept|" + libz + ":libm.so.6");
  ::unsetenv("LD_PRELOAD");
  ::unsetenv("ROCKPOOL_MEASURED_CHILD_TEST");
  ::unsetenv("OTHER_MEASURED_CHILD_TEST");
}

TEST(MeasuredChildTest, AProgramThatCannotStartIsAnError) {
  ChildOptions options;
  options.argv = {"/nonexistent/program"};
  bool ran = false;
  absl::StatusOr<ChildUsage> u = RunMeasuredChild(options, [&] { ran = true; });
  EXPECT_FALSE(u.ok());
  EXPECT_FALSE(ran);
  EXPECT_FALSE(RunMeasuredChild(ChildOptions{}, [] {}).ok());
}

}  // namespace
}  // namespace rockpool::process
