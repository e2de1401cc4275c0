#include "rocksdb_plugin/own_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace rockpool {
namespace {

// As many symbolic links as the kernel follows in one path (MAXSYMLINKS).
constexpr int kMaxLinks = 40;
// Tries at an unused temporary name before giving up.
constexpr int kMaxNameTries = 64;

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }

  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }
  // Closes now; the close's own error (a delayed write error) as an errno.
  int Close() {
    const int fd = std::exchange(fd_, -1);
    return fd >= 0 && ::close(fd) != 0 ? errno : 0;
  }

 private:
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

absl::Status Refused(const std::string& path, absl::string_view why) {
  return absl::FailedPreconditionError(absl::StrCat(path, ": refused: ", why));
}

absl::Status Errno(int err, const std::string& path, absl::string_view what) {
  return absl::ErrnoToStatus(err, absl::StrCat(path, ": ", what));
}

const char* KindOf(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// Why the file `st` describes is not one this process may write into ("" if it is).
std::string NotOwn(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return absl::StrCat("the path is ", KindOf(st.st_mode));
  if (st.st_uid != geteuid()) return absl::StrCat("the file belongs to uid ", st.st_uid);
  if (st.st_nlink != 1) return absl::StrCat("the file has ", st.st_nlink, " hard links");
  return "";
}

// The directory that holds a path, reached safely, and the file's name in it.
struct Target {
  Fd dir;
  std::string name;
};

absl::StatusOr<Target> OpenTarget(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("empty path");
  const size_t slash = path.rfind('/');
  Target t;
  t.name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (t.name.empty() || t.name == "." || t.name == "..") {
    return Refused(path, "the path names a directory");
  }
  std::deque<std::string> rest;
  if (slash != std::string::npos) {
    for (absl::string_view c : absl::StrSplit(path.substr(0, slash), '/', absl::SkipEmpty())) {
      rest.emplace_back(c);
    }
  }
  t.dir = Fd(::open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!t.dir.ok()) return Errno(errno, path, "cannot open the starting directory");
  std::string walked = path[0] == '/' ? "" : ".";  // for messages
  int links = 0;
  while (!rest.empty()) {
    const std::string c = std::move(rest.front());
    rest.pop_front();
    if (c == ".") continue;
    struct stat st;
    if (::fstatat(t.dir.get(), c.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return Errno(errno, path, absl::StrCat("cannot reach ", walked, "/", c));
    }
    if (S_ISLNK(st.st_mode)) {
      if (++links > kMaxLinks) return Errno(ELOOP, path, "cannot reach its directory");
      if (st.st_uid != 0 && st.st_uid != geteuid()) {
        return Refused(path,
                       absl::StrCat(walked, "/", c, " is a symbolic link of uid ", st.st_uid));
      }
      std::string target(4096, '\0');
      const ssize_t n = ::readlinkat(t.dir.get(), c.c_str(), target.data(), target.size());
      if (n < 0) return Errno(errno, path, absl::StrCat("cannot read the link ", walked, "/", c));
      if (static_cast<size_t>(n) >= target.size()) {
        return Errno(ENAMETOOLONG, path, absl::StrCat("cannot read the link ", walked, "/", c));
      }
      target.resize(static_cast<size_t>(n));
      std::vector<std::string> parts = absl::StrSplit(target, '/', absl::SkipEmpty());
      rest.insert(rest.begin(), parts.begin(), parts.end());
      if (!target.empty() && target[0] == '/') {
        t.dir = Fd(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (!t.dir.ok()) return Errno(errno, path, "cannot open /");
        walked.clear();
      }
      continue;
    }
    if (!S_ISDIR(st.st_mode))
      return Errno(ENOTDIR, path, absl::StrCat("cannot reach ", walked, "/", c));
    // O_NOFOLLOW: a link swapped in since the fstatat fails here.
    Fd next(::openat(t.dir.get(), c.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.ok()) return Errno(errno, path, absl::StrCat("cannot reach ", walked, "/", c));
    t.dir = std::move(next);
    absl::StrAppend(&walked, "/", c);
  }
  struct stat st;
  if (::fstat(t.dir.get(), &st) != 0) return Errno(errno, path, "cannot inspect its directory");
  if ((st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0) {
    return Refused(path, "its directory is writable by every user and has no sticky bit");
  }
  return t;
}

// The file at the target, if any: OK and *exists = false when there is none,
// FailedPrecondition when something is there that is not this process's own.
absl::Status CheckExisting(const Target& t, const std::string& path, bool* exists) {
  struct stat st;
  *exists = false;
  if (::fstatat(t.dir.get(), t.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno == ENOENT ? absl::OkStatus() : Errno(errno, path, "cannot inspect");
  }
  *exists = true;
  const std::string why = NotOwn(st);
  return why.empty() ? absl::OkStatus() : Refused(path, why);
}

// Letters and digits no other process can predict (getrandom; a mix of the
// clock, the pid and a counter if the kernel has no entropy yet).
std::string UnpredictableSuffix() {
  static constexpr char kAlphabet[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char bytes[12];
  if (::getrandom(bytes, sizeof(bytes), GRND_NONBLOCK) != static_cast<ssize_t>(sizeof(bytes))) {
    static std::atomic<uint64_t> counter{0};
    struct timespec ts;
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t x = static_cast<uint64_t>(ts.tv_nsec) ^ (static_cast<uint64_t>(ts.tv_sec) << 30) ^
                 (static_cast<uint64_t>(::getpid()) << 40) ^ counter.fetch_add(1);
    for (unsigned char& b : bytes) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      b = static_cast<unsigned char>(x);
    }
  }
  std::string out;
  for (unsigned char b : bytes) out += kAlphabet[b % (sizeof(kAlphabet) - 1)];
  return out;
}

int WriteAll(int fd, absl::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

}  // namespace

absl::Status ReplaceOwnFile(const std::string& path, absl::string_view contents, mode_t mode) {
  absl::StatusOr<Target> t = OpenTarget(path);
  if (!t.ok()) return t.status();
  bool exists = false;
  if (absl::Status s = CheckExisting(*t, path, &exists); !s.ok()) return s;
  std::string tmp;
  Fd fd;
  for (int i = 0; i < kMaxNameTries && !fd.ok(); ++i) {
    // A dot name: `rockpool stats DIR/*` never sees a file being written.
    tmp = absl::StrCat(".", t->name, ".", UnpredictableSuffix());
    fd = Fd(::openat(t->dir.get(), tmp.c_str(),
                     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (!fd.ok() && errno != EEXIST) return Errno(errno, path, "cannot create a temporary file");
  }
  if (!fd.ok()) return Errno(EEXIST, path, "cannot create a temporary file");
  int err = ::fchmod(fd.get(), mode) != 0 ? errno : 0;
  if (err == 0) err = WriteAll(fd.get(), contents);
  if (const int close_err = fd.Close(); err == 0) err = close_err;
  if (err == 0 && ::renameat(t->dir.get(), tmp.c_str(), t->dir.get(), t->name.c_str()) != 0) {
    err = errno;
  }
  if (err != 0) {
    ::unlinkat(t->dir.get(), tmp.c_str(), 0);
    return Errno(err, path, "cannot write");
  }
  return absl::OkStatus();
}

absl::Status AppendToOwnFile(const std::string& path, absl::string_view contents, mode_t mode) {
  absl::StatusOr<Target> t = OpenTarget(path);
  if (!t.ok()) return t.status();
  bool exists = false;
  if (absl::Status s = CheckExisting(*t, path, &exists); !s.ok()) return s;
  Fd fd;
  bool created = false;
  if (!exists) {
    fd = Fd(::openat(t->dir.get(), t->name.c_str(),
                     O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    created = fd.ok();
    if (!fd.ok() && errno != EEXIST) return Errno(errno, path, "cannot create");
  }
  if (!fd.ok()) {
    // O_NONBLOCK: a FIFO put there since the check does not block the open.
    fd = Fd(::openat(t->dir.get(), t->name.c_str(),
                     O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.ok()) {
      if (errno == ELOOP) return Refused(path, "the path is a symbolic link");
      return Errno(errno, path, "cannot open");
    }
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return Errno(errno, path, "cannot inspect");
    if (const std::string why = NotOwn(st); !why.empty()) return Refused(path, why);
  }
  int err = created && ::fchmod(fd.get(), mode) != 0 ? errno : 0;
  if (err == 0) err = WriteAll(fd.get(), contents);
  if (const int close_err = fd.Close(); err == 0) err = close_err;
  return err == 0 ? absl::OkStatus() : Errno(err, path, "cannot append");
}

absl::Status CheckOwnFileDirectory(const std::string& path) {
  absl::StatusOr<Target> t = OpenTarget(path);
  return t.ok() ? absl::OkStatus() : t.status();
}

absl::StatusOr<mode_t> ParseFileMode(absl::string_view text) {
  uint32_t mode = 0;
  const bool octal = !text.empty() && text.size() <= 4 &&
                     text.find_first_not_of("01234567") == absl::string_view::npos;
  if (octal) {
    for (char c : text) mode = mode * 8 + static_cast<uint32_t>(c - '0');
  }
  if (!octal || mode > 0777) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" is not an octal file mode such as 0600 or 0640"));
  }
  if ((mode & 0111) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" has an execute bit"));
  }
  if ((mode & 0002) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" would let every user write the file"));
  }
  return static_cast<mode_t>(mode);
}

}  // namespace rockpool
