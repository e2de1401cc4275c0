// In a program linking //rocksdb_plugin:legacy with the RocksDB it was
// built against (Debian's librocksdb.so), rockpool serves: the release check
// (rocksdb_plugin/legacy/release_check.cc) finds that RocksDB running and refuses nothing.
// The refusing side, in a process running another RocksDB, is
// tests/tools/rockpool/other_rocksdb_test.cc.
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "rocksdb/version.h"
#include "rocksdb_plugin/built_for_line.h"
#include "rocksdb_plugin/legacy/refusal.h"
#include "rocksdb_plugin/legacy/runtime.h"

namespace rockpool::legacy {
namespace {

TEST(ReleaseCheck, TheRocksdbItWasBuiltForIsServed) {
  EXPECT_EQ(CheckRunningRocksdb(), absl::OkStatus());
  EXPECT_EQ(Refusal(), absl::OkStatus());
  // Debian's release (7.8.3 on Debian 12, 9.10.0 on Debian 13): the headers'.
  EXPECT_EQ(rocksdb::GetRocksVersionAsString(true), ROCKPOOL_ROCKSDB_VERSION);
  RockpoolOptions options;
  Configure(options);
  EXPECT_EQ(CurrentMode(), RockpoolOptions::Mode::kPool);
  RockpoolOptions off;
  off.enabled = false;
  Configure(off);
  EXPECT_EQ(CurrentMode(), RockpoolOptions::Mode::kForward);
}

}  // namespace
}  // namespace rockpool::legacy
