#include "tests/tools/sst_replay/replay_cli.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

extern char** environ;

namespace rockpool::sst_replay_testing {

std::string CliTempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern =
      absl::StrCat(base != nullptr && base[0] != '\0' ? base : "/tmp", "/rockpool_cli_XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    std::abort();
  }
  return pattern;
}

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir != nullptr ? srcdir : ".", "/",
                      workspace != nullptr ? workspace : "rockpool", "/", path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `program args...`, capturing stdout and stderr.
Outcome Spawn(const std::string& program, const std::vector<std::string>& args) {
  static int counter = 0;
  const std::string base = absl::StrCat(CliTempDir(), "/spawn", counter++);
  const std::string out_path = base + ".out";
  const std::string err_path = base + ".err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<std::string> all = {program};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  Outcome o;
  if (posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return o;
  }
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  waitpid(pid, &status, 0);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = ReadFile(out_path);
  o.err = ReadFile(err_path);
  return o;
}

std::string SstReplayBinary() { return Runfile("tools/sst_replay/sst_replay"); }

std::string SstReplayTestingBinary() { return Runfile("tools/sst_replay/sst_replay_testing"); }

Outcome ReplayWith(const std::string& binary, std::vector<std::string> args) {
  args.insert(args.begin(), "--tmpdir=" + CliTempDir());
  return Spawn(binary, args);
}

Outcome Replay(std::vector<std::string> args) { return ReplayWith(SstReplayBinary(), args); }

// key=value lines of inspect_output.py (json or svg).
std::map<std::string, std::string> Inspect(const std::string& kind, const std::string& text) {
  const std::string path = absl::StrCat(CliTempDir(), "/output.", kind);
  std::ofstream(path, std::ios::binary) << text;
  Outcome o = Spawn("python3", {Runfile("tests/tools/sst_replay/inspect_output.py"), kind, path});
  EXPECT_EQ(o.code, 0) << kind << " does not parse: " << o.err << "\n" << text.substr(0, 2000);
  std::map<std::string, std::string> kv;
  for (absl::string_view line : absl::StrSplit(o.out, '\n', absl::SkipEmpty())) {
    std::pair<std::string, std::string> p = absl::StrSplit(line, absl::MaxSplits('=', 1));
    kv[p.first] = p.second;
  }
  return kv;
}

double Num(const std::map<std::string, std::string>& kv, const std::string& key) {
  auto it = kv.find(key);
  EXPECT_NE(it, kv.end()) << key;
  double v = 0;
  if (it != kv.end()) {
    EXPECT_TRUE(absl::SimpleAtod(it->second, &v)) << key << "=" << it->second;
  }
  return v;
}

std::string Str(const std::map<std::string, std::string>& kv, const std::string& key) {
  auto it = kv.find(key);
  EXPECT_NE(it, kv.end()) << key;
  return it == kv.end() ? "" : it->second;
}

}  // namespace rockpool::sst_replay_testing
