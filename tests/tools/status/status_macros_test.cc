#include "tools/status/status_macros.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"

namespace {

absl::StatusOr<std::unique_ptr<int>> Make(bool ok, int value, int* calls) {
  ++*calls;
  if (!ok) return absl::DataLossError("bad block");
  return std::make_unique<int>(value);
}

absl::Status Check(bool ok, int* calls) {
  ++*calls;
  return ok ? absl::OkStatus() : absl::NotFoundError("no file");
}

// Doubles what Make gives, after Check; each step may fail.
absl::StatusOr<int> Doubled(bool check_ok, bool make_ok, int* calls) {
  ROCKPOOL_RETURN_IF_ERROR(Check(check_ok, calls));
  ROCKPOOL_ASSIGN_OR_RETURN(std::unique_ptr<int> p, Make(make_ok, 21, calls));
  int twice = 0;
  ROCKPOOL_ASSIGN_OR_RETURN(twice, absl::StatusOr<int>(*p * 2));
  return twice;
}

TEST(StatusMacrosTest, ValuesPassThroughAndEachExpressionRunsOnce) {
  int calls = 0;
  absl::StatusOr<int> v = Doubled(true, true, &calls);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, 42);
  EXPECT_EQ(calls, 2);
}

TEST(StatusMacrosTest, ReturnIfErrorReturnsTheStatusUnchanged) {
  int calls = 0;
  absl::StatusOr<int> v = Doubled(false, true, &calls);
  EXPECT_EQ(v.status(), absl::NotFoundError("no file"));
  EXPECT_EQ(calls, 1);  // stopped before Make
}

TEST(StatusMacrosTest, AssignOrReturnReturnsTheStatusUnchanged) {
  int calls = 0;
  absl::StatusOr<int> v = Doubled(true, false, &calls);
  EXPECT_EQ(v.status(), absl::DataLossError("bad block"));
  EXPECT_EQ(calls, 2);
}

absl::Status Twice(int* calls) {
  ROCKPOOL_ASSIGN_OR_RETURN(auto a, Make(true, 1, calls));
  ROCKPOOL_ASSIGN_OR_RETURN(auto b, Make(false, 2, calls));
  return absl::InternalError("not reached");
}

TEST(StatusMacrosTest, TwoOnOneFunctionEachHaveTheirOwnName) {
  int calls = 0;
  EXPECT_EQ(Twice(&calls), absl::DataLossError("bad block"));
  EXPECT_EQ(calls, 2);
}

}  // namespace
