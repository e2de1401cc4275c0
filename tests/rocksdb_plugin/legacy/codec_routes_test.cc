// The layers under the interposers' per-caller routing, on the real libzstd
// and libz of this process (the test executable holds rockpool, linked
// statically, and links both libraries): which object holds an address,
// what a reference binds to with rockpool skipped, a copy resolved and
// checked, and the routes the interposers take
// (rocksdb_plugin/legacy/codec_routes.h).
// The cross-process cases (an executable's own zlib, a module's private
// copy, node) are the process matrix: tests/rocksdb_plugin/legacy/processes/
// and tests/private_codecs/ (in this executable every definition ahead of
// libz is rockpool's own, so an incoherent copy cannot be made here).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <atomic>
#include <cstring>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "rocksdb_plugin/legacy/codec_copies.h"
#include "rocksdb_plugin/legacy/codec_routes.h"
#include "rocksdb_plugin/legacy/loaded_objects.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "tests/rocksdb_plugin/legacy/interpose_test_util.h"

namespace rockpool::legacy {
namespace {

// An address inside the loaded library `soname`.
void* InLibrary(const char* soname, const char* symbol) {
  void* handle = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void* p = dlsym(handle, symbol);
  dlclose(handle);
  return p;
}

bool EndsWith(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(LoadedObjectsTest, NamesTheObjectThatHoldsAnAddress) {
  LoadedObject libz;
  void* deflate_end = InLibrary("libz.so.1", "deflateEnd");
  ASSERT_NE(deflate_end, nullptr);
  ASSERT_TRUE(ObjectAt(deflate_end, &libz));
  EXPECT_TRUE(EndsWith(libz.path, "libz.so.1")) << libz.path;
  EXPECT_TRUE(libz.contains(reinterpret_cast<uintptr_t>(deflate_end)));
  EXPECT_TRUE(IsStartupObject(libz));

  // rockpool lives in this executable: the same object as this test's code.
  LoadedObject here;
  ASSERT_TRUE(ObjectAt(reinterpret_cast<const void*>(&InLibrary), &here));
  EXPECT_EQ(here.link_map, RockpoolObject().link_map);
  EXPECT_NE(here.link_map, libz.link_map);

  int on_the_stack = 0;
  LoadedObject none;
  EXPECT_FALSE(ObjectAt(&on_the_stack, &none));
}

TEST(LoadedObjectsTest, ListsWhatALibraryDefinesAndNotWhatItImports) {
  LoadedObject libz;
  ASSERT_TRUE(ObjectAt(InLibrary("libz.so.1", "deflateEnd"), &libz));
  std::set<std::string> names;
  ASSERT_TRUE(ForEachExportedFunction(libz, [&](std::string_view n) { names.emplace(n); }));
  for (const char* defined : {"deflateReset", "deflateInit2_", "inflateReset2", "crc32"}) {
    EXPECT_TRUE(names.count(defined)) << defined;
  }
  EXPECT_FALSE(names.count("malloc"));  // an import of libz, not a definition
  EXPECT_FALSE(names.count("memcpy"));
}

TEST(LoadedObjectsTest, LooksUpPastRockpoolLikeTheLinker) {
  // This executable defines ZSTD_createCCtx (rockpool's); the reference
  // without rockpool reaches libzstd, through the global scope.
  bool global = false;
  void* p = LookupSkippingRockpool(RockpoolObject(), "ZSTD_createCCtx", &global);
  ASSERT_NE(p, nullptr);
  LoadedObject at;
  ASSERT_TRUE(ObjectAt(p, &at));
  EXPECT_TRUE(EndsWith(at.path, "libzstd.so.1")) << at.path;
  EXPECT_TRUE(global);
  EXPECT_EQ(LookupSkippingRockpool(RockpoolObject(), "rockpool_no_such_function", nullptr),
            nullptr);
}

TEST(CodecCopiesTest, ResolvesACompleteCoherentCopyOfEachCodec) {
  ZstdCopy zstd;
  ASSERT_EQ(ResolveCopy(RockpoolObject(), /*allow_fallback=*/false, &zstd), absl::OkStatus());
  EXPECT_TRUE(zstd.complete) << zstd.incomplete;
  EXPECT_TRUE(zstd.global);
  EXPECT_FALSE(zstd.private_copy);
  EXPECT_TRUE(EndsWith(zstd.object.path, "libzstd.so.1")) << zstd.object.path;
  ASSERT_NE(zstd.ZSTD_versionNumber, nullptr);
  EXPECT_EQ(zstd.ZSTD_versionNumber(), static_cast<unsigned>(ZSTD_VERSION_NUMBER));
  // Every function it resolved lies in the copy's object, none in rockpool.
  for (void* fn :
       {reinterpret_cast<void*>(zstd.ZSTD_createCCtx), reinterpret_cast<void*>(zstd.ZSTD_freeCCtx),
        reinterpret_cast<void*>(zstd.ZSTD_createCCtx_advanced)}) {
    ASSERT_NE(fn, nullptr);
    EXPECT_TRUE(zstd.object.contains(reinterpret_cast<uintptr_t>(fn)));
    EXPECT_FALSE(RockpoolObject().contains(reinterpret_cast<uintptr_t>(fn)));
  }
  EXPECT_EQ(CheckCoherent(zstd), absl::OkStatus());

  ZlibCopy zlib;
  ASSERT_EQ(ResolveCopy(RockpoolObject(), false, &zlib), absl::OkStatus());
  EXPECT_TRUE(zlib.complete) << zlib.incomplete;
  EXPECT_STREQ(zlib.zlibVersion(), zlibVersion());
  EXPECT_EQ(CheckCoherent(zlib), absl::OkStatus());
}

// The first test to switch pooling on in this process (gtest runs a file's
// tests in order): configuring binds nothing and creates no pool; a codec's
// first call binds it to the global scope's copy.
TEST(CodecRoutesTest, BindsEachCodecAtItsFirstCallNotAtConfigure) {
  Configure(On());
  EXPECT_EQ(ZstdRoutes().state(), CodecState::kUnused) << ZstdRoutes().reason();
  EXPECT_EQ(ZlibRoutes().state(), CodecState::kUnused) << ZlibRoutes().reason();
  EXPECT_EQ(Lz4Routes().state(), CodecState::kUnused) << Lz4Routes().reason();
  EXPECT_EQ(ZstdRoutes().bound_copy(), nullptr);
  EXPECT_EQ(Stats().Total().created, 0u);
  // Asking how the process is served binds nothing either.
  EXPECT_TRUE(CheckInterposition().zstd_layout);
  EXPECT_EQ(ZstdRoutes().state(), CodecState::kUnused);

  ZSTD_CCtx* cctx = ZSTD_createCCtx();  // interposed: this executable holds rockpool
  ASSERT_NE(cctx, nullptr);
  EXPECT_EQ(ZstdRoutes().state(), CodecState::kPooled) << ZstdRoutes().reason();
  EXPECT_EQ(Stats().zstd_compress.created, 1u);
  ZSTD_freeCCtx(cctx);
  // zlib is still unbound: only zstd was called.
  EXPECT_EQ(ZlibRoutes().state(), CodecState::kUnused);
  z_stream strm{};
  ASSERT_EQ(deflateInit2(&strm, 6, Z_DEFLATED, -14, 8, Z_DEFAULT_STRATEGY), Z_OK);
  EXPECT_EQ(ZlibRoutes().state(), CodecState::kPooled) << ZlibRoutes().reason();
  EXPECT_EQ(deflateEnd(&strm), Z_OK);
}

TEST(CodecRoutesTest, PoolsTheGlobalCopyAndRoutesEveryCallerToIt) {
  Configure(On());
  // Bound by the calls of the test above, or here by the first route.
  ZstdRoutes().For(reinterpret_cast<const void*>(&InLibrary));
  ZlibRoutes().For(reinterpret_cast<const void*>(&InLibrary));
  ASSERT_EQ(ZstdRoutes().state(), CodecState::kPooled) << ZstdRoutes().reason();
  ASSERT_EQ(ZlibRoutes().state(), CodecState::kPooled) << ZlibRoutes().reason();
  const ZstdCopy* bound = ZstdRoutes().bound_copy();
  ASSERT_NE(bound, nullptr);
  EXPECT_TRUE(EndsWith(bound->object.path, "libzstd.so.1"));
  EXPECT_TRUE(bound->custom_mem.ok);
  EXPECT_NE(ZstdRoutes().reason().find("pooled on "), std::string::npos);

  // From this executable, from inside libzstd and libz themselves (their
  // own internal calls of interposed names), and from an address in no
  // object: all reach the bound copy.
  for (const void* caller : {reinterpret_cast<const void*>(&InLibrary),
                             static_cast<const void*>(InLibrary("libzstd.so.1", "ZSTD_compress")),
                             static_cast<const void*>(InLibrary("libz.so.1", "deflate"))}) {
    const auto route = ZstdRoutes().For(caller);
    EXPECT_EQ(route.copy, bound);
    EXPECT_TRUE(route.pooled);
  }
  int heap_like = 0;
  EXPECT_EQ(ZstdRoutes().For(&heap_like).copy, bound);
  const auto zlib = ZlibRoutes().For(reinterpret_cast<const void*>(&InLibrary));
  EXPECT_TRUE(zlib.pooled);
  EXPECT_EQ(zlib.copy, ZlibRoutes().bound_copy());

  const std::string states = CodecStates();
  EXPECT_NE(states.find(" zstd=pooled"), std::string::npos) << states;
  EXPECT_NE(states.find(" zlib=pooled"), std::string::npos) << states;
  EXPECT_EQ(states.find("_forwarded="), std::string::npos) << states;
}

// Many threads resolving and leasing at once through the interposers (the
// first resolution of a caller races with the others' cached lookups);
// tagged concurrency, so TSan runs it.
TEST(CodecRoutesTest, ConcurrentCallersAllReachTheirCopy) {
  Configure(On());
  constexpr int kThreads = 8;
  constexpr int kRounds = 300;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) {
        ZSTD_CCtx* cctx = ZSTD_createCCtx();
        if (cctx == nullptr || ZSTD_isError(ZSTD_freeCCtx(cctx))) failures.fetch_add(1);
        z_stream s;
        std::memset(&s, 0, sizeof(s));
        if (deflateInit2(&s, 6, Z_DEFLATED, -14, 8, Z_DEFAULT_STRATEGY) != Z_OK ||
            deflateEnd(&s) != Z_OK) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(Stats().zstd_compress.reused, 0u);
  EXPECT_GT(Stats().deflate.reused, 0u);
}

}  // namespace
}  // namespace rockpool::legacy
