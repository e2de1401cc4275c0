// 32 threads on a 2-core machine lease, use and return real zstd and zlib
// contexts with randomized keys, levels and block sizes, holding leases for
// random times (and sometimes several at once), while other threads Trim(),
// expire idle contexts and (in one test) change the pool caps. Checked:
//   - every output round-trips, byte for byte;
//   - a sampler thread never sees more idle contexts than the caps allow;
//   - afterwards the books balance, and Trim() brings the bytes held to 0.
//
// Default: a bounded number of operations (ROCKPOOL_STRESS_OPS per thread,
// fewer under the sanitizers; about 5-10 s here). Soak mode,
// off by default, runs by time instead:
//   ROCKPOOL_SOAK_SECONDS=600 bazel test //tests/reliability:stress_test
//       --test_env=ROCKPOOL_SOAK_SECONDS --test_timeout=900
// ROCKPOOL_STRESS_SEED=<n> repeats a run's random choices (threads still
// interleave differently).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "compression/block_codecs.h"
#include "compression/context_pool_testing.h"
#include "tests/compression/test_data.h"
#include "tests/reliability/fault_walk.h"

namespace rockpool::reliability {
namespace {

using ::rockpool::testing::Incompressible;
using ::rockpool::testing::SemiCompressible;

constexpr int kThreads = 32;

// Operations per thread by default: about 10 s here, as many under the
// sanitizers (which run the same code 2-15x slower).
#if defined(__SANITIZE_THREAD__)
#define ROCKPOOL_STRESS_SANITIZER_DIVISOR 4
#elif defined(__SANITIZE_ADDRESS__)
#define ROCKPOOL_STRESS_SANITIZER_DIVISOR 2
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ROCKPOOL_STRESS_SANITIZER_DIVISOR 4
#elif __has_feature(address_sanitizer)
#define ROCKPOOL_STRESS_SANITIZER_DIVISOR 2
#endif
#endif
#ifndef ROCKPOOL_STRESS_SANITIZER_DIVISOR
#define ROCKPOOL_STRESS_SANITIZER_DIVISOR 1
#endif
constexpr uint64_t kDefaultOpsPerThread = 400 / ROCKPOOL_STRESS_SANITIZER_DIVISOR;

// The pools' clock. Not absl::Now(): as far as TSan can tell, absl::Now()
// synchronizes the threads that call it (Abseil's time code takes an
// annotated lock), which would hide races between them.
absl::Time SteadyNow() {
  return absl::UnixEpoch() + absl::FromChrono(std::chrono::steady_clock::now().time_since_epoch());
}

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

// The key space is deliberately small so the idle bound (cap x keys) is tight.
const DeflateKey kDeflateKeys[] = {
    {1, -14, 8, Z_DEFAULT_STRATEGY}, {6, -14, 8, Z_DEFAULT_STRATEGY},
    {9, -15, 8, Z_FILTERED},         {6, -12, 8, Z_RLE},
    {6, 31, 8, Z_DEFAULT_STRATEGY},  {1, 15, 8, Z_DEFAULT_STRATEGY},
};
constexpr int kInflateWindows[] = {-15, 31, 15, 47};
constexpr size_t kDeflateKeyCount = std::size(kDeflateKeys);
constexpr size_t kInflateKeyCount = std::size(kInflateWindows);

struct Failures {
  std::atomic<uint64_t> count{0};
  absl::Mutex mu;
  std::string first;
  void Add(const std::string& what) {
    if (count.fetch_add(1) == 0) {
      absl::MutexLock lock(&mu);
      first = what;
    }
  }
};

class StressTest : public ::testing::Test {
 protected:
  StressTest() {
    seed_ = EnvOr("ROCKPOOL_STRESS_SEED", std::random_device{}());
    soak_seconds_ = EnvOr("ROCKPOOL_SOAK_SECONDS", 0);
    std::printf("stress: seed %llu (ROCKPOOL_STRESS_SEED), soak %llu s\n",
                static_cast<unsigned long long>(seed_),
                static_cast<unsigned long long>(soak_seconds_));
    auto d = ZstdDictionary::Create(SemiCompressible(4096, 99), 3);
    EXPECT_TRUE(d.ok());
    dict_ = *std::move(d);
  }

  // Sizes: log-uniform from 0 to 256 KiB, mostly RocksDB-block-like.
  static size_t RandomSize(std::mt19937_64& rng) {
    const int bits = static_cast<int>(rng() % 19);  // 0 .. 2^18
    return bits == 0 ? 0 : static_cast<size_t>(rng() % (size_t{1} << bits));
  }

  static void HoldFor(std::mt19937_64& rng) {
    switch (rng() % 4) {
      case 0:
        break;
      case 1:
        std::this_thread::yield();
        break;
      default:
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 800));
        break;
    }
  }

  // One randomized operation; false (and a recorded failure) if anything
  // did not round-trip.
  void Operation(CompressionPools& pools, const BlockCodecs& codecs, std::mt19937_64& rng,
                 Failures& failures) {
    const size_t size = RandomSize(rng);
    const std::string input =
        rng() % 4 == 0 ? Incompressible(size, rng()) : SemiCompressible(size, rng());
    std::string block, back;
    auto fail = [&](const std::string& what, const absl::Status& s) {
      failures.Add(what + " (" + std::to_string(size) + " bytes): " + s.ToString());
    };
    switch (rng() % 5) {
      case 0: {  // zstd through the codec, random level, sometimes a dictionary
        const int level = rng() % 8 == 0 ? 19 : static_cast<int>(rng() % 12) - 2;
        const ZstdDictionary* dict = rng() % 4 == 0 ? dict_.get() : nullptr;
        absl::Status s =
            codecs.zstd().Compress(input, size > 65536 && level == 19 ? 3 : level, dict, &block);
        if (s.ok()) s = codecs.zstd().Decompress(block, dict, &back);
        if (!s.ok() || back != input) return fail("zstd block", s);
        break;
      }
      case 1: {  // zstd leases held across a pause, RocksDB-style (one per file)
        auto c = pools.zstd_compress().Acquire(ZstdKey{});
        if (!c.ok()) return fail("zstd lease", c.status());
        for (int i = 0, n = 1 + static_cast<int>(rng() % 3); i < n; ++i) {
          absl::Status s = ZstdBlockCodec::CompressWith(
              (*c)->get(), input, 1 + static_cast<int>(rng() % 5), nullptr, &block);
          HoldFor(rng);
          auto d = pools.zstd_decompress().Acquire(ZstdKey{});
          if (!d.ok()) return fail("zstd lease", d.status());
          if (s.ok())
            s = ZstdBlockCodec::DecompressWith((*d)->get(), block, nullptr, size_t{1} << 20, &back);
          if (!s.ok() || back != input) return fail("zstd leased", s);
        }
        break;
      }
      case 2: {  // zlib blocks with a random key, sometimes a dictionary
        const DeflateKey& key = kDeflateKeys[rng() % 4];  // the raw-deflate keys
        ZlibBlockOptions o;
        o.level = key.level;
        o.window_bits = key.window_bits;
        o.strategy = key.strategy;
        if (rng() % 4 == 0) o.dictionary = dict_->raw();
        absl::Status s = codecs.zlib().Compress(input, o, &block);
        if (s.ok()) s = codecs.zlib().Decompress(block, o.dictionary, &back);
        if (!s.ok() || back != input) return fail("zlib block", s);
        break;
      }
      case 3: {  // zlib/gzip streams, decoded with an explicit or detected window
        const DeflateKey& key = kDeflateKeys[4 + rng() % 2];
        absl::Status s = codecs.zlib().CompressStream(input, key.level, key.window_bits, &block);
        const int wb = rng() % 2 == 0 ? 47 : key.window_bits;
        if (s.ok()) s = codecs.zlib().DecompressStream(block, wb, input.size(), &back);
        if (!s.ok() || back != input) return fail("zlib stream", s);
        break;
      }
      default: {  // several leases of several pools held at once
        std::vector<DeflatePool::Lease> deflates;
        std::vector<InflatePool::Lease> inflates;
        for (int i = 0, n = 1 + static_cast<int>(rng() % 3); i < n; ++i) {
          auto d =
              pools.deflate().Acquire(NormalizeDeflateKey(kDeflateKeys[rng() % kDeflateKeyCount]));
          if (!d.ok()) return fail("deflate lease", d.status());
          deflates.push_back(*std::move(d));
          auto f = pools.inflate().Acquire(InflateKey{kInflateWindows[rng() % kInflateKeyCount]});
          if (!f.ok()) return fail("inflate lease", f.status());
          inflates.push_back(*std::move(f));
        }
        HoldFor(rng);
        // Give them back in a random order.
        std::shuffle(deflates.begin(), deflates.end(), rng);
        deflates.clear();
        HoldFor(rng);
        inflates.clear();
        break;
      }
    }
  }

  struct RunOptions {
    PoolOptions pool;
    uint64_t ops_per_thread = 60;
    bool change_caps = false;  // a thread flips max_retained_per_key between 0, 1 and pool.max
  };

  void Run(const RunOptions& run) {
    CompressionPools pools(run.pool);
    BlockCodecs codecs(&pools, size_t{1} << 20);
    Failures failures;
    std::atomic<bool> done{false};
    std::atomic<uint64_t> ops{0}, samples{0};
    const size_t cap = run.pool.max_retained_per_key;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(soak_seconds_);

    // Samples the idle counts while the workers run: counted under each
    // pool's lock (stats().idle is exact only when quiescent).
    std::thread sampler([&] {
      while (!done.load()) {
        const size_t zstd_compress = ContextPoolTesting::CountIdleNow(pools.zstd_compress());
        const size_t zstd_decompress = ContextPoolTesting::CountIdleNow(pools.zstd_decompress());
        const size_t deflate = ContextPoolTesting::CountIdleNow(pools.deflate());
        const size_t inflate = ContextPoolTesting::CountIdleNow(pools.inflate());
        if (zstd_compress > cap || zstd_decompress > cap || deflate > cap * kDeflateKeyCount ||
            inflate > cap * kInflateKeyCount) {
          failures.Add("idle over cap: zstd_compress " + std::to_string(zstd_compress) +
                       ", zstd_decompress " + std::to_string(zstd_decompress) + ", deflate " +
                       std::to_string(deflate) + ", inflate " + std::to_string(inflate) + " (cap " +
                       std::to_string(cap) + " per key)");
        }
        samples.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
    // Trims and expires concurrently with the workers (and changes caps).
    std::thread janitor([&] {
      std::mt19937_64 rng(seed_ ^ 0x5eed);
      while (!done.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1 + rng() % 20));
        switch (rng() % 3) {
          case 0:
            pools.Trim();
            break;
          case 1:
            pools.ReleaseExpired();
            break;
          default:
            if (run.change_caps) {
              PoolOptions o = run.pool;
              const size_t caps[] = {0, 1, cap};
              o.max_retained_per_key = caps[rng() % 3];
              pools.SetOptions(o);
            }
            break;
        }
      }
    });

    std::vector<std::thread> workers;
    for (int t = 0; t < kThreads; ++t) {
      workers.emplace_back([&, t] {
        std::mt19937_64 rng(seed_ * 1000003 + static_cast<uint64_t>(t));
        for (uint64_t i = 0;; ++i) {
          if (soak_seconds_ > 0 ? std::chrono::steady_clock::now() >= deadline
                                : i >= run.ops_per_thread)
            break;
          Operation(pools, codecs, rng, failures);
          ops.fetch_add(1);
          if (failures.count.load() > 0) break;
        }
      });
    }
    for (std::thread& w : workers) w.join();
    done.store(true);
    sampler.join();
    janitor.join();
    if (run.change_caps) pools.SetOptions(run.pool);

    {
      absl::MutexLock lock(&failures.mu);
      EXPECT_EQ(failures.count.load(), 0u) << "first failure: " << failures.first;
    }
    const PoolStats total = pools.stats().Total();
    std::printf(
        "stress: %llu operations, %llu idle samples; created %llu, reused %llu, destroyed %llu, "
        "peak in use %llu, library %llu allocations\n",
        static_cast<unsigned long long>(ops.load()),
        static_cast<unsigned long long>(samples.load()),
        static_cast<unsigned long long>(total.created),
        static_cast<unsigned long long>(total.reused),
        static_cast<unsigned long long>(total.destroyed),
        static_cast<unsigned long long>(total.peak_in_use),
        static_cast<unsigned long long>(total.library.allocations));
    EXPECT_GT(samples.load(), 0u);
    EXPECT_GT(total.reused, 0u);
    ExpectBalanced(pools.stats());
    ExpectEmptyAfterTrim(pools);
  }

  uint64_t seed_ = 0;
  uint64_t soak_seconds_ = 0;
  std::shared_ptr<const ZstdDictionary> dict_;
};

TEST_F(StressTest, ThirtyTwoThreadsRandomKeysLevelsSizesAndHoldTimes) {
  RunOptions run;
  run.pool.max_retained_per_key = 3;
  run.pool.idle_timeout = absl::Milliseconds(20);  // expiry runs all the time
  run.pool.now = &SteadyNow;
  run.ops_per_thread = EnvOr("ROCKPOOL_STRESS_OPS", kDefaultOpsPerThread);
  Run(run);
}

TEST_F(StressTest, CapsChangingUnderLoad) {
  RunOptions run;
  run.pool.max_retained_per_key = 2;
  run.pool.idle_timeout = absl::InfiniteDuration();
  run.pool.now = &SteadyNow;
  run.ops_per_thread = EnvOr("ROCKPOOL_STRESS_OPS", kDefaultOpsPerThread) / 2;
  run.change_caps = true;
  Run(run);
}

}  // namespace
}  // namespace rockpool::reliability
