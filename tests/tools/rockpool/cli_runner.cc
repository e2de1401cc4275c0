#include "tests/tools/rockpool/cli_runner.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace rockpool::cli::cli_test {
namespace {

std::string g_rockpool, g_libdir;

}  // namespace

void SetRockpool(const std::string& rockpool, const std::string& libdir) {
  g_rockpool = rockpool;
  g_libdir = libdir;
}

std::string Absolute(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
}

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

size_t Lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

Result Rockpool(const std::vector<std::string>& args, std::vector<std::string> env) {
  env.push_back("PATH=/usr/bin:/bin");
  bool has_libdir = false;
  for (const std::string& e : env) has_libdir = has_libdir || e.rfind("ROCKPOOL_LIBDIR=", 0) == 0;
  if (!has_libdir) env.push_back("ROCKPOOL_LIBDIR=" + g_libdir);
  static int n = 0;
  const std::string out = TempDir() + "/out." + std::to_string(++n);
  const std::string err = out + ".err";
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> argv = {g_rockpool.data()};
    std::vector<std::string> a = args;
    for (std::string& s : a) argv.push_back(s.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (std::string& s : env) envp.push_back(s.data());
    envp.push_back(nullptr);
    execve(g_rockpool.c_str(), argv.data(), envp.data());
    _exit(99);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Result r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  return r;
}

}  // namespace rockpool::cli::cli_test
