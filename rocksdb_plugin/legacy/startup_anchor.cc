// The first function of the start-up code (rocksdb_plugin/BUILD.bazel,
// STARTUP_ORDER): aligned to 64 KiB, so the code a process runs when rockpool
// serves nothing, and the read-only data after it, share one 64 KiB window.
//
// Why 64 KiB: on a page fault in a file mapping the kernel maps every cached
// page of the 64 KiB-aligned window around it (fault-around), so the
// resident size of a library is its touched windows, not its touched pages.
// The objects are linked with 64 KiB segment alignment, which glibc >= 2.35
// honours when it maps them, so a window of the file is a window in memory.
// A constructor calls the anchor once: that keeps its section through the
// linker's garbage collection, and costs one return.
namespace rockpool::legacy {
namespace {

[[gnu::section(".text.rockpool_startup_anchor"), gnu::aligned(65536), gnu::noinline]] void
StartupAnchor() {
  asm volatile("");
}

[[gnu::constructor]] void KeepStartupAnchor() { StartupAnchor(); }

}  // namespace
}  // namespace rockpool::legacy
