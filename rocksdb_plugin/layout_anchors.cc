// The first functions of the blocks of code the preloaded objects place
// together, each aligned to 64 KiB (rocksdb_plugin/legacy/BUILD.bazel, code_order;
// rocksdb_plugin/native/defs.bzl for the native object):
//   - the served anchor starts the code a process runs once rockpool serves
//     a codec (leases, returns, binding the codec's copy), so a process that
//     serves one codec keeps one or two windows of it resident, not the
//     whole object's (the legacy face's objects);
//   - the start-up anchor starts the code a process runs when rockpool
//     serves nothing; it and the read-only data after it share one window
//     (every preloaded object).
//
// Why 64 KiB: on a page fault in a file mapping the kernel maps every cached
// page of the 64 KiB-aligned window around it (fault-around), so the
// resident size of a library is its touched windows, not its touched pages.
// The objects are linked with 64 KiB segment alignment, which glibc >= 2.35
// honours when it maps them, so a window of the file is a window in memory.
// A constructor calls the start-up anchor once: that keeps its section
// through the linker's garbage collection, and costs one return. The served
// anchor is kept by the start-up anchor taking its address: calling it at
// load would make its window resident in every process.
namespace rockpool {
namespace {

[[gnu::section(".text.rockpool_served_anchor"), gnu::aligned(65536), gnu::noinline]] void
ServedAnchor() {
  asm volatile("");
}

[[gnu::section(".text.rockpool_startup_anchor"), gnu::aligned(65536), gnu::noinline]] void
StartupAnchor() {
  asm volatile("" : : "r"(&ServedAnchor));
}

[[gnu::constructor]] void KeepStartupAnchor() { StartupAnchor(); }

}  // namespace
}  // namespace rockpool
