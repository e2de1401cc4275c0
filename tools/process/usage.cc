#include "tools/process/usage.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace rockpool::process {
namespace {

int64_t Nanos(const timeval& tv) {
  return static_cast<int64_t>(tv.tv_sec) * 1000000000 + static_cast<int64_t>(tv.tv_usec) * 1000;
}

// The number after `field` in the /proc file `path`; -1 if unreadable or
// absent. Raw syscalls and a stack buffer: no allocation inside a
// measured window.
int64_t ReadProcNumber(const char* path, const char* field) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[8192];
  size_t used = 0;
  while (used < sizeof(buf) - 1) {
    const ssize_t n = ::read(fd, buf + used, sizeof(buf) - 1 - used);
    if (n <= 0) break;
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  buf[used] = '\0';
  const char* p = std::strstr(buf, field);
  if (p == nullptr) return -1;
  return std::strtoll(p + std::strlen(field), nullptr, 10);
}

bool g_peak_rss_reset = false;
int64_t g_peak_rss_before_window = -1;

}  // namespace

ProcessSnapshot TakeSnapshot() {
  ProcessSnapshot s;
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  s.wall_ns = static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    s.cpu_ns = Nanos(ru.ru_utime) + Nanos(ru.ru_stime);
    s.minor_faults = ru.ru_minflt;
    s.major_faults = ru.ru_majflt;
  }
  s.malloc = ReadMallocCounts();
  return s;
}

int64_t PeakRssBytes() {
  const int64_t kb = ReadProcNumber("/proc/self/status", "VmHWM:");
  return kb < 0 ? -1 : kb * 1024;
}

int64_t BytesWritten() { return ReadProcNumber("/proc/self/io", "wchar:"); }

bool ResetPeakRss() {
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return ok;
}

ProcessSnapshot OpenWindow() {
  g_peak_rss_before_window = std::max(g_peak_rss_before_window, PeakRssBytes());
  g_peak_rss_reset = ResetPeakRss();
  ResetMallocPeak();
  return TakeSnapshot();
}

bool PeakRssIsWindowOnly() { return g_peak_rss_reset; }

int64_t ImagePeakRssBytes() { return std::max(g_peak_rss_before_window, PeakRssBytes()); }

}  // namespace rockpool::process
