// Running the sst_replay binary from a test and reading its outputs, with
// no RocksDB dependency (real_calls_test links an upstream RocksDB with it):
// spawning, --json and --svg through inspect_output.py.
#ifndef ROCKPOOL_TESTS_TOOLS_SST_REPLAY_REPLAY_CLI_H_
#define ROCKPOOL_TESTS_TOOLS_SST_REPLAY_REPLAY_CLI_H_

#include <map>
#include <string>
#include <vector>

namespace rockpool::sst_replay_testing {

// Sanitizer builds of sst_replay leave malloc to the sanitizer runtime: the
// whole-process counter is off there (and reads 0).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kMallocCounter = false;
#else
constexpr bool kMallocCounter = true;
#endif

std::string Runfile(const std::string& path);
std::string ReadFile(const std::string& path);

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs `program args...`, capturing stdout and stderr.
Outcome Spawn(const std::string& program, const std::vector<std::string>& args);
// A fresh directory under $TEST_TMPDIR.
std::string CliTempDir();
// The sst_replay to run: the runfile
// tools/sst_replay/sst_replay.
std::string SstReplayBinary();
// sst_replay with the output-damaging test hooks
// (tools/sst_replay/child_runs_testing.cc): the runfile
// tools/sst_replay/sst_replay_testing.
std::string SstReplayTestingBinary();
// Runs `binary` (an sst_replay) with --tmpdir in a fresh temporary directory.
Outcome ReplayWith(const std::string& binary, std::vector<std::string> args);
// ReplayWith(SstReplayBinary(), args).
Outcome Replay(std::vector<std::string> args);

// key=value lines of inspect_output.py (json or svg).
std::map<std::string, std::string> Inspect(const std::string& kind, const std::string& text);
double Num(const std::map<std::string, std::string>& kv, const std::string& key);
std::string Str(const std::map<std::string, std::string>& kv, const std::string& key);

}  // namespace rockpool::sst_replay_testing

#endif  // ROCKPOOL_TESTS_TOOLS_SST_REPLAY_REPLAY_CLI_H_
