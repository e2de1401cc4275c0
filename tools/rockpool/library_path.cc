#include "tools/rockpool/library_path.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

extern char** environ;

namespace rockpool::cli {
namespace {

constexpr char kDefaultLoader[] = "/lib64/ld-linux-x86-64.so.2";
constexpr char kTraceVariable[] = "LD_TRACE_LOADED_OBJECTS=1";

// The loader's listing of `program`'s libraries (its stdout).
absl::StatusOr<std::string> LoaderListing(const std::string& loader, const std::string& program) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> env = {kTraceVariable};
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!absl::StartsWith(*e, "LD_TRACE_LOADED_OBJECTS=")) env.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string loader_arg = loader;
  // A name without '/' would be searched for like a library.
  std::string program_arg = program.find('/') == std::string::npos ? "./" + program : program;
  char* argv[] = {loader_arg.data(), program_arg.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, loader.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (spawned != 0) {
    close(out[0]);
    return absl::InternalError(
        absl::StrCat("cannot run the dynamic loader ", loader, ": ", std::strerror(spawned)));
  }
  std::string listing;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(out[0], buf, sizeof(buf));
    if (n > 0) {
      listing.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return listing;
}

}  // namespace

absl::StatusOr<std::string> LibraryInListing(absl::string_view listing, const std::string& soname) {
  const std::string head = absl::StrCat(soname, " => ");
  for (absl::string_view line : absl::StrSplit(listing, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, head)) continue;
    if (absl::StartsWith(line, "not found")) {
      return absl::NotFoundError(
          absl::StrCat(soname, ": not found by the dynamic loader (the program cannot start)"));
    }
    const size_t address = line.rfind(" (0x");
    if (address != absl::string_view::npos) line = line.substr(0, address);
    return std::string(line);
  }
  return absl::NotFoundError(absl::StrCat(soname, ": not listed by the dynamic loader"));
}

absl::StatusOr<std::string> ResolveLibrary(const std::string& program, const ProgramFile& file,
                                           const std::string& soname) {
  const std::string loader = file.interpreter.empty() ? kDefaultLoader : file.interpreter;
  absl::StatusOr<std::string> listing = LoaderListing(loader, program);
  if (!listing.ok()) return listing.status();
  return LibraryInListing(*listing, soname);
}

}  // namespace rockpool::cli
