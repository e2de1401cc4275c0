// `rockpool run`'s pieces: its flags, LD_PRELOAD composition, the options
// it sets. The exec itself is tested in rockpool_cli_test.
#include "tools/rockpool/run_command.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rockpool::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kObject[] = "/usr/lib/x86_64-linux-gnu/rockpool/librockpool_preload.so";

TEST(RunArguments, FlagsThenProgram) {
  absl::StatusOr<RunRequest> r =
      ParseRunArguments({"--options=max_idle_per_key=4", "--stats=/tmp/s.%p", "--verbose",
                         "--object=interpose", "--", "db_bench", "--num=10"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r->options, "max_idle_per_key=4");
  EXPECT_EQ(*r->stats, "/tmp/s.%p");
  EXPECT_TRUE(r->verbose);
  EXPECT_EQ(*r->object, ObjectKind::kInterpose);
  EXPECT_THAT(r->argv, ElementsAre("db_bench", "--num=10"));
  r = ParseRunArguments({"--object=native", "--", "db_bench"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r->object, ObjectKind::kNative);
  r = ParseRunArguments({"gzip", "-9"});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->options.has_value());
  EXPECT_THAT(r->argv, ElementsAre("gzip", "-9"));
}

TEST(RunArguments, Errors) {
  EXPECT_THAT(std::string(ParseRunArguments({"--bogus", "--", "x"}).status().message()),
              HasSubstr("unknown flag --bogus"));
  EXPECT_THAT(std::string(ParseRunArguments({"--object=both", "--", "x"}).status().message()),
              HasSubstr("expected preload, interpose or native"));
  EXPECT_THAT(std::string(ParseRunArguments({"--options", "x"}).status().message()),
              HasSubstr("needs a value"));
  EXPECT_THAT(std::string(ParseRunArguments({"--verbose", "--"}).status().message()),
              HasSubstr("no PROGRAM"));
}

TEST(Preload, PrependedOnceOthersKept) {
  EXPECT_EQ(PreloadWith("", kObject), kObject);
  EXPECT_EQ(PreloadWith("/lib/a.so", kObject), std::string(kObject) + ":/lib/a.so");
  EXPECT_EQ(PreloadWith("/lib/a.so /lib/b.so", kObject),
            std::string(kObject) + ":/lib/a.so:/lib/b.so");
  // Already there: moved to the front, not twice.
  EXPECT_EQ(PreloadWith(std::string("/lib/a.so:") + kObject, kObject),
            std::string(kObject) + ":/lib/a.so");
  // Another rockpool object (an outer `rockpool run`): replaced.
  EXPECT_EQ(PreloadWith("/x/librockpool_interpose.so:/lib/a.so", kObject),
            std::string(kObject) + ":/lib/a.so");
  EXPECT_EQ(PreloadWith("/x/librockpool_native.so", kObject), kObject);
}

TEST(Options, FlagEnvironmentDefault) {
  EXPECT_EQ(*OptionsToSet(std::nullopt, nullptr), "max_idle_per_key=8");
  EXPECT_EQ(*OptionsToSet(std::nullopt, ""), "max_idle_per_key=8");
  EXPECT_EQ(*OptionsToSet(std::nullopt, "idle_seconds=5"), "idle_seconds=5");
  EXPECT_EQ(*OptionsToSet(std::string("measure_stock=true"), "idle_seconds=5"),
            "measure_stock=true");
  absl::StatusOr<std::string> bad = OptionsToSet(std::string("max_idle=4"), nullptr);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("--options=\"max_idle=4\": unknown option"));
  bad = OptionsToSet(std::nullopt, "max_idle_per_key=lots");
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("ROCKPOOL_OPTIONS (from the environment)"));
}

}  // namespace
}  // namespace rockpool::cli
