#include "rocksdb_plugin/verbose.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace rockpool {
namespace {

// 0: not read yet; 1: quiet; 2: verbose. Two threads racing on the first
// call may both read the environment; the first to store wins, and every
// later caller sees that value.
std::atomic<int> g_verbose{0};

// secure_getenv: in a setuid, setgid or capability process the variable is
// the caller's, not the owner's, and reads as unset (quiet).
int ReadVerbose() noexcept {
  const char* value = secure_getenv(kVerboseVariable);
  return value != nullptr && std::strcmp(value, "1") == 0 ? 2 : 1;
}

// Appends the decimal digits of `n` at `out`; returns the end.
char* AppendDecimal(char* out, unsigned long n) noexcept {
  char digits[24];
  int k = 0;
  do {
    digits[k++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  while (k > 0) *out++ = digits[--k];
  return out;
}

char* Append(char* out, std::string_view s) noexcept {
  std::memcpy(out, s.data(), s.size());
  return out + s.size();
}

}  // namespace

bool VerboseEnabled() noexcept {
  int v = g_verbose.load(std::memory_order_acquire);
  if (v == 0) {
    int expected = 0;
    const int read = ReadVerbose();
    v = g_verbose.compare_exchange_strong(expected, read, std::memory_order_acq_rel) ? read
                                                                                     : expected;
  }
  return v == 2;
}

void SayVerbose(std::string_view line) noexcept {
  if (!VerboseEnabled()) return;
  const int saved_errno = errno;
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  char buf[kVerboseLineLimit];
  char* p = Append(buf, "rockpool[");
  p = AppendDecimal(p, static_cast<unsigned long>(getpid()));
  p = Append(p, "]: ");
  constexpr std::string_view kCut = "...";
  const size_t room = static_cast<size_t>(buf + sizeof(buf) - p) - 1;  // 1 for '\n'
  if (line.size() <= room) {
    p = Append(p, line);
  } else {
    p = Append(p, line.substr(0, room - kCut.size()));
    p = Append(p, kCut);
  }
  *p++ = '\n';
  // One write; a short write (a full pipe, a signal) continues with the rest.
  const char* at = buf;
  while (at < p) {
    const ssize_t n = write(STDERR_FILENO, at, static_cast<size_t>(p - at));
    if (n > 0) {
      at += n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // stderr closed or broken: nothing to report it to
    }
  }
  errno = saved_errno;
}

}  // namespace rockpool
