#include <gtest/gtest.h>
#include <zstd.h>
#include "absl/synchronization/mutex.h"
#include "rocksdb/db.h"
TEST(Smoke, Links) { absl::Mutex mu; absl::MutexLock l(&mu); EXPECT_GT(ZSTD_versionNumber(), 0u); rocksdb::Options o; EXPECT_TRUE(o.create_if_missing == false); }
