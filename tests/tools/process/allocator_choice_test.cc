// tools/process/allocator_choice.h, as sst_replay's --allocator uses it:
// which values are accepted, the one-line errors (a named allocator that is
// not installed names its Debian package), the checks on a PATH. Sanitizer
// builds refuse every preload.
#include "tools/process/allocator_choice.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/compression/test_data.h"
#include "tools/process/active_allocator.h"

namespace rockpool::process {
namespace {

using ::testing::HasSubstr;

constexpr AllocatorFlag kFlag = {"--allocator", "sst_replay"};

// A real shared object that defines malloc: the one serving this test
// (glibc's, or a sanitizer's runtime).
std::string MallocObject() {
  Dl_info info;
  void* (*fn)(size_t) = &std::malloc;
  EXPECT_NE(dladdr(reinterpret_cast<void*>(fn), &info), 0);
  return info.dli_fname;
}

std::string Message(const absl::StatusOr<AllocatorSelection>& s) {
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(s.status())) << s.status();
  return std::string(s.status().message());
}

TEST(AllocatorTest, GlibcIsTheDefaultAndPreloadsNothing) {
  absl::StatusOr<AllocatorSelection> s = SelectAllocators(kFlag, "glibc");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->allocators.size(), 1u);
  EXPECT_EQ(s->allocators[0].name, "glibc");
  EXPECT_EQ(s->allocators[0].preload, "");
  EXPECT_EQ(NamedAllocators()[1].path, "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2");
  EXPECT_EQ(NamedAllocators()[2].package, "libtcmalloc-minimal4");
}

TEST(AllocatorTest, NamedAllocatorNotInstalledNamesItsPackage) {
  const std::vector<NamedAllocator> named = {
      {"glibc", "", "libc6"},
      {"jemalloc", "/nonexistent/libjemalloc.so.2", "libjemalloc2"},
      {"tcmalloc", MallocObject(), "libtcmalloc-minimal4"}};
  EXPECT_EQ(Message(SelectAllocators(kFlag, "jemalloc", named)),
            "--allocator=jemalloc: /nonexistent/libjemalloc.so.2 is missing; install Debian's "
            "libjemalloc2");
  // all: what is installed, and a note for what is not.
  absl::StatusOr<AllocatorSelection> all = SelectAllocators(kFlag, "all", named);
  if (SanitizerBuild()) {
    EXPECT_THAT(Message(all), HasSubstr("sanitizer build"));
    return;
  }
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->allocators.size(), 2u);
  EXPECT_EQ(all->allocators[0].name, "glibc");
  EXPECT_EQ(all->allocators[1].name, "tcmalloc");
  EXPECT_EQ(all->allocators[1].preload, MallocObject());
  ASSERT_EQ(all->notes.size(), 1u);
  EXPECT_EQ(all->notes[0],
            "--allocator=all: jemalloc left out: /nonexistent/libjemalloc.so.2 is missing; "
            "install Debian's libjemalloc2");
}

TEST(AllocatorTest, UnknownNamesAndBadPathsAreOneLine) {
  for (const char* name : {"foo", "", "GLIBC", "tcmalloc2"}) {
    EXPECT_THAT(Message(SelectAllocators(kFlag, name)),
                HasSubstr(absl::StrCat("--allocator=", name,
                                       ": want glibc, jemalloc, tcmalloc, all, or the path")));
  }
  const std::string dir = ::rockpool::testing::FreshTestDir("allocator_test");
  const std::string text = dir + "/notes.so";
  std::ofstream(text) << "not an object\n";
  EXPECT_THAT(Message(SelectAllocators(kFlag, text)), HasSubstr("no ELF magic number"));
  EXPECT_THAT(Message(SelectAllocators(kFlag, dir)), HasSubstr(": not a regular file"));
  EXPECT_THAT(Message(SelectAllocators(kFlag, dir + "/missing.so")),
              HasSubstr("cannot open: No such file or directory"));
  EXPECT_THAT(Message(SelectAllocators(kFlag, dir + "/a b.so")), HasSubstr("a space or a colon"));
  for (const std::string& bad : {text, dir, dir + "/missing.so"}) {
    const std::string m = Message(SelectAllocators(kFlag, bad));
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind("--allocator=" + bad + ": ", 0), 0u) << m;
  }
}

TEST(AllocatorTest, MessagesNameTheFlagAndProgramGiven) {
  const AllocatorFlag other = {"--malloc", "my_tool"};
  EXPECT_THAT(Message(SelectAllocators(other, "foo")), HasSubstr("--malloc=foo: want glibc"));
  if (SanitizerBuild()) {
    EXPECT_THAT(Message(SelectAllocators(other, MallocObject())),
                HasSubstr("--malloc=" + MallocObject() + ": this my_tool is a sanitizer build"));
  }
}

TEST(AllocatorTest, PathToASharedObjectDefiningMalloc) {
  EXPECT_TRUE(CheckAllocatorObject(MallocObject(), "sst_replay").ok());
  absl::StatusOr<AllocatorSelection> s = SelectAllocators(kFlag, MallocObject());
  if (SanitizerBuild()) {
    EXPECT_THAT(Message(s), HasSubstr("no allocator can be preloaded into it"));
    return;
  }
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->allocators[0].preload, MallocObject());
  EXPECT_EQ(s->allocators[0].name, std::filesystem::path(MallocObject()).filename().string());
}

}  // namespace
}  // namespace rockpool::process
