// sst_replay: replays RocksDB SST workloads and reports the compression
// context churn of stock RocksDB against rockpool's pooled contexts (see
// README.md beside this file). This file holds the flags and main(); the
// parent's work is session.h, the measured work happens in child processes
// (block_replay.h, compaction_replay.h) that sst_replay starts from itself.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/internal/program_name.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/str_cat.h"
#include "compression/debug_check.h"
#include "rockpool_version.h"
#include "rocksdb_plugin/own_file.h"
#include "tools/process/allocator_check.h"
#include "tools/process/usage.h"
#include "tools/sst_replay/block_replay.h"
#include "tools/sst_replay/child_support.h"
#include "tools/sst_replay/command_line.h"
#include "tools/sst_replay/compaction_replay.h"
#include "tools/sst_replay/job.h"
#include "tools/sst_replay/session.h"
#include "tools/status/status_macros.h"

// Hidden flags, defined in internal_flags.cc so that --help (this file's
// flags only) does not list them: how sst_replay starts its own child runs,
// and a test hook that exists only in test builds (ROCKPOOL_DEBUG_CHECKS_ON,
// compression/debug_check.h, which `bazel test` turns on): a released
// sst_replay cannot be told a wrong free space. Nor can it damage its
// output: that hook is in the testonly :sst_replay_testing only
// (child_runs_testing.cc).
ABSL_DECLARE_FLAG(bool, internal_child);
ABSL_DECLARE_FLAG(std::string, internal_job);
ABSL_DECLARE_FLAG(std::string, internal_result);
ABSL_DECLARE_FLAG(int32_t, internal_progress_fd);
#if ROCKPOOL_DEBUG_CHECKS_ON
ABSL_DECLARE_FLAG(int64_t, testonly_scratch_free_bytes);
#endif

ABSL_FLAG(std::string, mode, "both",
          "blocks: replay every data block's decompression and compression as RocksDB calls "
          "them; compaction: a full RocksDB compaction of the inputs; both");
ABSL_FLAG(
    std::string, codec, "",
    "recompress with this codec (zstd, zlib, lz4 or lz4hc) instead of each file's own; empty: the "
    "codec recorded in each file");
ABSL_FLAG(std::string, level, "", "compression level; empty: the level recorded in each file");
ABSL_FLAG(uint64_t, block_size, 0,
          "blocks mode: re-block the data into blocks of this many bytes before compressing "
          "(0: keep the files' blocks); compaction mode: the output block size (0: 4096)");
ABSL_FLAG(int32_t, repeat, 5,
          "runs per strategy, alternating stock and pooled; the table shows medians with the "
          "largest deviation and, for timing-like figures, a Mann-Whitney U test as benchstat "
          "does (4 or more runs are needed for p <= 0.05), --json every run");
ABSL_FLAG(bool, json, false, "print the results as JSON instead of the table");
ABSL_FLAG(std::string, svg, "",
          "also draw a chart into this SVG file (allocation over the replay, main figures)");
ABSL_FLAG(rockpool::RockpoolOptions::MaxIdlePerKey, max_idle_per_key,
          rockpool::RockpoolOptions::kDefaultMaxIdlePerKey,
          "pooled strategy: contexts retained per pool key, idle or leased");
ABSL_FLAG(uint64_t, workload_mb, 32,
          "without inputs: MiB of keys and values in the generated default workload");
ABSL_FLAG(std::string, tmpdir, "",
          "where the scratch directory goes (default: $TMPDIR, else /tmp); compaction mode "
          "copies its inputs there once per run and needs room for three copies at once (it "
          "checks before the first); inputs are never written");
ABSL_FLAG(bool, keep_tmp, false, "keep the scratch directory (outputs, scratch DBs) and say where");
ABSL_FLAG(bool, verify_checksums, true, "verify the block checksums of the inputs");
ABSL_FLAG(std::string, rocksdb_version, "auto",
          "whose call pattern stock replays: auto (the DB directory's newest OPTIONS file, "
          "[Version] rocksdb_version, i.e. the RocksDB that last opened the DB), or 6.29, 7.8, 8, "
          "9, 10, 10.4, 11 or a version such as 11.8.1; files without an OPTIONS file beside "
          "them need it (compaction mode always runs the RocksDB sst_replay was built with)");
ABSL_FLAG(bool, progress, true, "show a progress bar on stderr when it is a terminal");
ABSL_FLAG(std::string, allocator, "glibc",
          "the malloc both the stock and the pooled children run under: glibc (nothing "
          "preloaded), jemalloc (Debian's libjemalloc2), tcmalloc (libtcmalloc-minimal4), the "
          "path of a shared object to preload, or all (glibc and every named one installed, "
          "side by side); each child checks that it really runs the allocator asked for");

namespace rockpool::replay {
namespace {

constexpr char kUsage[] =
    "replays RocksDB SST workloads: stock RocksDB's zstd/zlib/LZ4 context churn vs rockpool's "
    "pooled contexts.\n\n"
    "Usage: sst_replay [flags] [SST file | directory of SSTs | RocksDB DB directory]...\n\n"
    "Without inputs, a default workload (a small RocksDB DB with zstd and zlib files) is "
    "generated in the scratch directory.\n"
    "Exit codes: 0 success, 1 pooled and stock outputs differ, 2 bad input or usage (or no room "
    "in the scratch directory), "
    "3 internal error.";

FlagValues CurrentFlags() {
  FlagValues f;
  f.mode = absl::GetFlag(FLAGS_mode);
  f.codec = absl::GetFlag(FLAGS_codec);
  f.level = absl::GetFlag(FLAGS_level);
  f.replay.block_size = absl::GetFlag(FLAGS_block_size);
  f.replay.repeat = absl::GetFlag(FLAGS_repeat);
  f.json = absl::GetFlag(FLAGS_json);
  f.svg = absl::GetFlag(FLAGS_svg);
  f.replay.max_idle_per_key = absl::GetFlag(FLAGS_max_idle_per_key);
  f.workload_mb = absl::GetFlag(FLAGS_workload_mb);
  f.tmpdir = absl::GetFlag(FLAGS_tmpdir);
  f.keep_tmp = absl::GetFlag(FLAGS_keep_tmp);
  f.replay.verify_checksums = absl::GetFlag(FLAGS_verify_checksums);
  f.progress = absl::GetFlag(FLAGS_progress);
  f.rocksdb_version = absl::GetFlag(FLAGS_rocksdb_version);
  f.allocator = absl::GetFlag(FLAGS_allocator);
#if ROCKPOOL_DEBUG_CHECKS_ON
  f.scratch_free_bytes = absl::GetFlag(FLAGS_testonly_scratch_free_bytes);
#endif
  return f;
}

// The job file's run, into `result`.
absl::Status RunJobFile(RunResult* result) {
  ROCKPOOL_ASSIGN_OR_RETURN(const std::string text,
                            ReadTextFile(absl::GetFlag(FLAGS_internal_job)));
  ROCKPOOL_ASSIGN_OR_RETURN(const Job job, ParseJob(text));
  // First: the run must be under the allocator asked for.
  process::ActiveAllocator active = process::DetectActiveAllocator();
  absl::Status status = process::CheckActiveAllocator(kAllocatorFlag.flag, job.allocator,
                                                      job.allocator_preload, &active);
  AddAllocatorFacts(active, result);
  ProgressSink progress(absl::GetFlag(FLAGS_internal_progress_fd));
  if (status.ok()) {
    status = job.mode == "blocks" ? RunBlocksReplay(job, result, &progress)
                                  : RunCompactionReplay(job, result, &progress);
  }
  result->metrics["felt_peak_rss_bytes"] = process::ImagePeakRssBytes();
  return status;
}

// One measured strategy run (--internal_child): the job file in, the result
// file out.
int ChildMain() {
  RunResult result;
  const absl::Status status = RunJobFile(&result);
  result.error_code = ExitCodeFor(status);
  result.error = OneLine(status.message());
  for (std::string& note : result.notes) note = OneLine(note);
  for (auto& [key, fact] : result.facts) fact = OneLine(fact);
  if (absl::Status s =
          ReplaceOwnFile(absl::GetFlag(FLAGS_internal_result), SerializeResult(result));
      !s.ok()) {
    std::fprintf(stderr, "sst_replay: %s\n", OneLine(s.message()).c_str());
    return 3;
  }
  return result.error_code;
}

}  // namespace
}  // namespace rockpool::replay

int main(int argc, char** argv) {
  // Under `bazel run`, relative paths (inputs, --svg, --tmpdir) mean the
  // directory the user ran bazel in, not the runfiles tree.
  if (const char* dir = std::getenv("BUILD_WORKING_DIRECTORY"); dir != nullptr && *dir != '\0') {
    if (::chdir(dir) != 0) std::perror("sst_replay: chdir to BUILD_WORKING_DIRECTORY");
  }
  absl::flags_internal::SetProgramInvocationName(argc > 0 ? argv[0] : "sst_replay");
  absl::SetProgramUsageMessage(rockpool::replay::kUsage);
  // --version: the release (rockpool_version.h), as Abseil prints it.
  absl::FlagsUsageConfig usage_config;
  usage_config.version_string = [] { return std::string("sst_replay " ROCKPOOL_VERSION "\n"); };
  absl::SetFlagsUsageConfig(usage_config);
  std::vector<std::string> inputs;
  if (int rc = rockpool::replay::ParseFlags(argc, argv, &inputs); rc >= 0) return rc;
  if (absl::GetFlag(FLAGS_internal_child)) return rockpool::replay::ChildMain();
  absl::StatusOr<rockpool::replay::Settings> settings =
      rockpool::replay::SettingsFromFlags(rockpool::replay::CurrentFlags());
  if (!settings.ok()) return rockpool::replay::UsageError(settings.status().message());
  return rockpool::replay::RunSession(*settings, std::move(inputs));
}
