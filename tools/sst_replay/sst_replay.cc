// sst_replay: replays RocksDB SST workloads and reports the compression
// context churn of stock RocksDB against rockpool's pooled contexts.
// See README_SECTION.md; the measured work happens in child processes
// (block_replay.h, compaction_replay.h) that this program starts from itself.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/internal/program_name.h"
#include "absl/flags/internal/usage.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compression/block_codecs.h"
#include "compression/block_format.h"
#include "tools/sst/checksum.h"
#include "tools/sst/codec_decompressor.h"
#include "compression/compression_type.h"
#include "tools/sst/sst_file.h"
#include "tools/sst_replay/block_replay.h"
#include "tools/sst_replay/child_support.h"
#include "tools/sst_replay/compaction_replay.h"
#include "tools/sst_replay/compare.h"
#include "tools/sst_replay/inputs.h"
#include "tools/sst_replay/internal_flags.h"
#include "tools/sst_replay/job.h"
#include "tools/sst_replay/measure.h"
#include "tools/sst_replay/report.h"
#include "tools/sst_replay/runner.h"
#include "tools/sst_replay/staging.h"
#include "tools/sst_replay/svg.h"
#include "tools/sst_replay/workload.h"

ABSL_FLAG(std::string, mode, "both",
          "blocks: replay every data block's decompression and compression as RocksDB calls "
          "them; compaction: a full RocksDB compaction of the inputs; both");
ABSL_FLAG(std::string, codec, "",
          "recompress with this codec (zstd or zlib) instead of each file's own; empty: the "
          "codec recorded in each file");
ABSL_FLAG(std::string, level, "",
          "compression level; empty: the level recorded in each file");
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
ABSL_FLAG(uint64_t, max_idle_per_key, 8, "pooled strategy: idle contexts kept per pool key");
ABSL_FLAG(uint64_t, workload_mb, 32,
          "without inputs: MiB of keys and values in the generated default workload");
ABSL_FLAG(std::string, tmpdir, "",
          "where the scratch directory goes (default: $TMPDIR, else /tmp); inputs are never "
          "written");
ABSL_FLAG(bool, keep_tmp, false, "keep the scratch directory (outputs, scratch DBs) and say where");
ABSL_FLAG(bool, verify_checksums, true, "verify the block checksums of the inputs");
ABSL_FLAG(bool, progress, true, "show a progress bar on stderr when it is a terminal");

namespace rockpool::replay {
namespace {

namespace fs = std::filesystem;

constexpr char kUsage[] =
    "replays RocksDB SST workloads: stock RocksDB's zstd/zlib context churn vs rockpool's "
    "pooled contexts.\n\n"
    "Usage: sst_replay [flags] [SST file | directory of SSTs | RocksDB DB directory]...\n\n"
    "Without inputs, a default workload (a small RocksDB DB with zstd and zlib files) is "
    "generated in the scratch directory.\n"
    "Exit codes: 0 success, 1 pooled and stock outputs differ, 2 bad input or usage, "
    "3 internal error.";

absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string OneLine(absl::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

// ------------------------------------------------------------------ flags

int UsageError(absl::string_view message) {
  std::fprintf(stderr, "sst_replay: %s\nTry --help.\n", OneLine(message).c_str());
  return 2;
}

// Abseil flag syntax (--name=value, --name value, --bool, --nobool, -name),
// parsed through Abseil's public flag reflection so that every error is a
// usage error (exit 2) rather than absl::ParseCommandLine's exit(1), which
// this tool reserves for "outputs differ". Returns an exit code, or -1 to
// go on.
int ParseFlags(int argc, char** argv, std::vector<std::string>* positional) {
  bool only_positional = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (only_positional || arg.size() < 2 || arg[0] != '-') {
      positional->emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    const std::string_view body = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string_view name = body;
    std::optional<std::string_view> value;
    if (const size_t eq = body.find('='); eq != std::string_view::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
    }
    // Abseil's usage flags (--help, --helpfull, --helpshort, --help=substring,
    // --version, ...) print exactly as in any Abseil program; all exit 0.
    const std::string_view usage_name = name == "h" || name == "?" ? "help" : name;
    if (absl::flags_internal::DeduceUsageFlags(A(usage_name), A(value.value_or("")))) {
      absl::flags_internal::HandleUsageFlags(std::cout, absl::ProgramUsageMessage());
      std::cout.flush();
      return 0;
    }
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(A(name));
    std::string text;
    if (flag == nullptr && name.substr(0, 2) == "no" && !value.has_value()) {
      flag = absl::FindCommandLineFlag(A(name.substr(2)));
      if (flag != nullptr && !flag->IsOfType<bool>()) flag = nullptr;
      text = "false";
    } else if (flag != nullptr && value.has_value()) {
      text = std::string(*value);
    } else if (flag != nullptr && flag->IsOfType<bool>()) {
      text = "true";
    } else if (flag != nullptr) {
      if (i + 1 >= argc) return UsageError(absl::StrCat("flag --", A(name), " needs a value"));
      text = argv[++i];
    }
    if (flag == nullptr) return UsageError(absl::StrCat("unknown flag ", A(arg)));
    std::string error;
    if (!flag->ParseFrom(text, &error)) {
      return UsageError(absl::StrCat("--", A(name), ": ", error));
    }
  }
  return -1;
}

// -------------------------------------------------------------- child side

int ChildMain() {
  RunResult result;
  const std::string result_path = absl::GetFlag(FLAGS_internal_result);
  absl::Status status;
  absl::StatusOr<std::string> text = ReadTextFile(absl::GetFlag(FLAGS_internal_job));
  if (!text.ok()) {
    status = text.status();
  } else {
    absl::StatusOr<Job> job = ParseJob(*text);
    if (!job.ok()) {
      status = job.status();
    } else {
      ProgressSink progress(absl::GetFlag(FLAGS_internal_progress_fd));
      status = job->mode == "blocks" ? RunBlocksReplay(*job, &result, &progress)
                                     : RunCompactionReplay(*job, &result, &progress);
    }
  }
  if (!status.ok()) {
    result.error_code = ExitCodeFor(status);
    result.error = OneLine(status.message());
  }
  for (std::string& note : result.notes) note = OneLine(note);
  if (absl::Status s = WriteTextFile(result_path, SerializeResult(result)); !s.ok()) {
    std::fprintf(stderr, "sst_replay: %s\n", OneLine(s.message()).c_str());
    return 3;
  }
  return result.error_code;
}

// ------------------------------------------------------------- parent side

struct Settings {
  bool blocks = true;
  bool compaction = true;
  std::optional<uint8_t> codec;
  std::optional<int> level;
  uint64_t block_size = 0;
  int repeat = 5;
  uint64_t max_idle_per_key = 8;
  bool verify_checksums = true;
};

absl::StatusOr<Settings> ReadSettings() {
  Settings s;
  const std::string mode = absl::GetFlag(FLAGS_mode);
  if (mode == "blocks") {
    s.compaction = false;
  } else if (mode == "compaction") {
    s.blocks = false;
  } else if (mode != "both") {
    return absl::InvalidArgumentError(
        absl::StrCat("--mode=", mode, ": want blocks, compaction or both"));
  }
  const std::string codec = absl::GetFlag(FLAGS_codec);
  if (codec == "zstd") {
    s.codec = rockpool::compression_type::kZSTD;
  } else if (codec == "zlib") {
    s.codec = rockpool::compression_type::kZlib;
  } else if (!codec.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--codec=", codec, ": want zstd or zlib"));
  }
  const std::string level = absl::GetFlag(FLAGS_level);
  if (!level.empty()) {
    int v = 0;
    if (!absl::SimpleAtoi(level, &v) || v < -131072 || v > 32767) {
      return absl::InvalidArgumentError(absl::StrCat("--level=", level, ": want an integer"));
    }
    s.level = v;
  }
  s.block_size = absl::GetFlag(FLAGS_block_size);
  if (s.block_size > (uint64_t{64} << 20)) {
    return absl::InvalidArgumentError("--block_size: at most 64 MiB");
  }
  if (s.block_size != 0 && s.block_size < 64) {
    return absl::InvalidArgumentError("--block_size: at least 64 bytes (or 0)");
  }
  s.repeat = absl::GetFlag(FLAGS_repeat);
  if (s.repeat < 1 || s.repeat > 1000) {
    return absl::InvalidArgumentError("--repeat: want 1..1000");
  }
  s.max_idle_per_key = absl::GetFlag(FLAGS_max_idle_per_key);
  if (s.max_idle_per_key < 1 || s.max_idle_per_key > 65536) {
    return absl::InvalidArgumentError("--max_idle_per_key: want 1..65536");
  }
  if (absl::GetFlag(FLAGS_workload_mb) < 1 || absl::GetFlag(FLAGS_workload_mb) > 65536) {
    return absl::InvalidArgumentError("--workload_mb: want 1..65536");
  }
  s.verify_checksums = absl::GetFlag(FLAGS_verify_checksums);
  return s;
}

// The scratch directory: everything sst_replay writes goes here.
class Scratch {
 public:
  ~Scratch() {
    if (path_.empty()) return;
    if (keep_) {
      std::fprintf(stderr, "sst_replay: scratch directory kept: %s\n", path_.c_str());
      return;
    }
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  absl::Status Create(std::string parent, bool keep) {
    keep_ = keep;
    if (parent.empty()) {
      const char* env = std::getenv("TMPDIR");
      parent = env != nullptr && *env != '\0' ? env : "/tmp";
    }
    std::string tmpl = parent + "/sst_replay.XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(parent, ": cannot create a scratch directory: ", std::strerror(errno)));
    }
    path_ = tmpl;
    return absl::OkStatus();
  }
  std::string Path(std::string_view name) const { return absl::StrCat(path_, "/", A(name)); }
  bool keep() const { return keep_; }

 private:
  std::string path_;
  bool keep_ = false;
};

void RemoveQuietly(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

std::string ChecksumName(uint8_t c) {
  return std::string(sst::ChecksumTypeName(static_cast<sst::ChecksumType>(c)));
}

bool Poolable(uint8_t type) {
  return type == rockpool::compression_type::kZlib || type == rockpool::compression_type::kZSTD;
}

// What a file is recompressed with, or why it is skipped.
struct Target {
  std::optional<CodecSettings> codec;
  bool use_dictionary = false;
  std::string skip_reason;
};

Target TargetFor(const InputFile& in, const Settings& settings) {
  Target t;
  const uint8_t type = in.codec.type;
  if (!RockpoolDecodes(type)) {
    t.skip_reason = absl::StrCat("skipped: ", CodecName(type),
                                 " blocks (rockpool pools zstd and zlib contexts; this reader "
                                 "decompresses zstd and zlib only)");
    return t;
  }
  const uint8_t target = settings.codec.value_or(type);
  if (!Poolable(target)) {
    t.skip_reason = "skipped: uncompressed (pass --codec=zstd or --codec=zlib to replay it compressed)";
    return t;
  }
  if (in.data_blocks == 0) {
    t.skip_reason = "skipped: no data blocks";
    return t;
  }
  CodecSettings c;
  if (target == type) {
    c = in.codec;
    t.use_dictionary = in.has_dictionary;
  } else {
    c.type = target;
  }
  if (settings.level.has_value()) c.level = *settings.level;
  t.codec = c;
  return t;
}

// Reads and decompresses every data block (checksums verified): for
// compaction-only runs, bad input must fail here, with the reader's message,
// before RocksDB sees it.
// Adds one run's comparison against the reference run to the mode's report;
// the first difference found is the one reported.
void RecordComparison(const Comparison& c, ModeReport* m) {
  ++m->compared_runs;
  m->compared_blocks = c.blocks;
  if (!c.identical && m->identical) {
    m->identical = false;
    m->difference = c.difference;
  }
}

absl::Status VerifyDataBlocks(const std::string& path, const sst::SstReadOptions& options) {
  absl::StatusOr<std::unique_ptr<sst::SstFile>> file = sst::SstFile::Open(path, options);
  if (!file.ok()) return file.status();
  absl::StatusOr<std::vector<sst::BlockHandle>> handles = (*file)->DataBlockHandles();
  if (!handles.ok()) return handles.status();
  for (const sst::BlockHandle& h : *handles) {
    absl::StatusOr<std::string> contents = (*file)->ReadBlockContents(h, sst::BlockKind::kData);
    if (!contents.ok()) return contents.status();
  }
  return absl::OkStatus();
}

// Flips one byte in the middle of the first data block of `path` (a scratch
// output, never an input): the --testonly_corrupt_pooled_output hook.
absl::Status CorruptFirstDataBlock(const std::string& path, const sst::SstReadOptions& options) {
  absl::StatusOr<std::unique_ptr<sst::SstFile>> file = sst::SstFile::Open(path, options);
  if (!file.ok()) return file.status();
  absl::StatusOr<std::vector<sst::BlockHandle>> handles = (*file)->DataBlockHandles();
  if (!handles.ok()) return handles.status();
  if (handles->empty()) return absl::OkStatus();
  const uint64_t at = handles->front().offset + handles->front().size / 2;
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, path);
  char byte = 0;
  bool ok = ::pread(fd, &byte, 1, static_cast<off_t>(at)) == 1;
  byte = static_cast<char>(byte ^ 0x01);
  ok = ok && ::pwrite(fd, &byte, 1, static_cast<off_t>(at)) == 1;
  ::close(fd);
  if (!ok) return absl::InternalError(absl::StrCat("cannot corrupt ", path));
  return absl::OkStatus();
}

class Parent {
 public:
  Parent(Settings settings, std::vector<std::string> args)
      : settings_(std::move(settings)),
        args_(std::move(args)),
        bar_(absl::GetFlag(FLAGS_progress) && ::isatty(STDERR_FILENO) == 1),
        codecs_(&pools_) {
    read_options_.verify_checksums = settings_.verify_checksums;
    read_options_.decompressor = sst::MakeBlockCodecsDecompressor(&codecs_);
  }

  int Run() {
    if (absl::Status s = scratch_.Create(absl::GetFlag(FLAGS_tmpdir), absl::GetFlag(FLAGS_keep_tmp));
        !s.ok()) {
      return Fail(2, s.message());
    }
    absl::StatusOr<std::string> self = SelfExecutable();
    if (!self.ok()) return Fail(3, self.status().message());
    self_ = *self;
    report_.repeat = settings_.repeat;
    report_.malloc_counter_active = MallocCounterActive();

    if (args_.empty()) {
      if (int rc = GenerateWorkload(); rc != 0) return rc;
    }
    absl::StatusOr<std::vector<std::string>> paths = ResolveInputs(args_);
    if (!paths.ok()) return Fail(2, paths.status().message());
    for (const std::string& path : *paths) {
      bar_.Update(0, absl::StrCat("reading ", path));
      absl::StatusOr<InputFile> in = ScanFile(path, read_options_);
      if (!in.ok()) return Fail(2, in.status().message());
      inputs_.push_back(*std::move(in));
    }
    for (const InputFile& in : inputs_) {
      InputReport r;
      r.path = in.path;
      r.codec = CodecName(in.codec.type);
      r.level = in.codec.level;
      r.data_blocks = in.data_blocks;
      r.stored_data_bytes = in.stored_data_bytes;
      r.format_version = in.format_version;
      r.checksum = ChecksumName(in.checksum);
      r.dictionary = in.has_dictionary;
      report_.inputs.push_back(r);
    }

    const double units = 2.0 * settings_.repeat * ((settings_.blocks ? 1 : 0) + (settings_.compaction ? 1 : 0));
    bar_.SetTotal(units);
    if (settings_.blocks) {
      if (int rc = RunBlocks(); rc != 0) return rc;
    }
    if (settings_.compaction) {
      if (int rc = RunCompaction(); rc != 0) return rc;
    }
    bar_.Clear();
    return Finish();
  }

 private:
  int Fail(int code, absl::string_view message) {
    bar_.Clear();
    std::fprintf(stderr, "sst_replay: %s\n", OneLine(message).c_str());
    return code;
  }

  int GenerateWorkload() {
    const uint64_t mb = absl::GetFlag(FLAGS_workload_mb);
    const std::string dir = scratch_.Path("default_workload");
    bar_.Update(0, "generating the default workload");
    absl::StatusOr<WorkloadStats> stats = GenerateDefaultWorkload(dir, mb);
    if (!stats.ok()) return Fail(3, stats.status().message());
    report_.default_workload = true;
    report_.workload_description = absl::StrFormat(
        "RocksDB 7.8.3 DB, %s records, %s of keys and values: \"events\" JSON log lines (zstd) "
        "and \"orders\" JSON documents (zlib), %d SST files",
        FormatCount(static_cast<double>(stats->records)),
        FormatBytes(static_cast<double>(stats->raw_bytes)), stats->sst_files);
    args_.push_back(dir);
    return 0;
  }

  // One strategy run; returns the child's exit code (0 = ok).
  int RunOne(Job& job, const std::string& label, ChildRun* out) {
    const std::string base = scratch_.Path(absl::StrCat("run", run_counter_++));
    absl::StatusOr<ChildRun> run =
        RunChild(self_, job, base + ".job", base + ".result", &bar_, units_done_, label);
    units_done_ += 1;
    if (!run.ok()) return Fail(3, run.status().message());
    if (run->result.error_code != 0) return Fail(run->result.error_code, run->result.error);
    *out = *std::move(run);
    return 0;
  }

  static Strategy StrategyAt(int rep, int k) {
    // Alternate which strategy goes first; the first run is stock (the
    // reference every other run is compared with).
    const bool stock_first = rep % 2 == 0;
    return (k == 0) == stock_first ? Strategy::kStock : Strategy::kPooled;
  }

  int RunBlocks() {
    ModeReport m;
    m.mode = "blocks";
    m.x_label = "uncompressed MiB replayed";
    Job job;
    job.mode = "blocks";
    job.max_idle_per_key = settings_.max_idle_per_key;
    job.verify_checksums = settings_.verify_checksums;
    job.block_size = settings_.block_size;
    std::map<std::string, int> per_codec;
    int skipped = 0;
    std::vector<std::string> file_names;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const InputFile& in = inputs_[i];
      Target t = TargetFor(in, settings_);
      if (!t.codec.has_value()) {
        report_.inputs[i].blocks_mode = t.skip_reason;
        m.notes.push_back(absl::StrCat(in.path, ": ", t.skip_reason));
        ++skipped;
        continue;
      }
      report_.inputs[i].blocks_mode = "replayed";
      job.files.push_back(BlocksFile{in.path, *t.codec, t.use_dictionary});
      job.total_blocks += in.data_blocks;
      job.total_stored_bytes += in.stored_data_bytes;
      ++per_codec[CodecName(t.codec->type)];
      file_names.push_back(in.path);
    }
    if (job.files.empty()) {
      m.notes.push_back("nothing to replay in blocks mode");
      std::fprintf(stderr, "sst_replay: blocks mode: no file with zstd or zlib data to replay\n");
      notes_only_.push_back(std::move(m));
      units_done_ += 2.0 * settings_.repeat;
      return 0;
    }

    std::string reference;
    bool corrupted = false;
    for (int rep = 0; rep < settings_.repeat; ++rep) {
      for (int k = 0; k < 2; ++k) {
        const Strategy strategy = StrategyAt(rep, k);
        job.strategy = strategy;
        job.output = scratch_.Path(absl::StrCat("blocks-", StrategyName(strategy), "-", rep, ".out"));
        job.corrupt_output = strategy == Strategy::kPooled && !corrupted &&
                             absl::GetFlag(FLAGS_testonly_corrupt_pooled_output);
        corrupted = corrupted || job.corrupt_output;
        ChildRun run;
        const std::string label =
            absl::StrCat("blocks ", StrategyName(strategy), " run ", rep + 1, "/", settings_.repeat);
        if (int rc = RunOne(job, label, &run); rc != 0) return rc;
        (strategy == Strategy::kStock ? m.stock : m.pooled).push_back(std::move(run.result));
        if (reference.empty()) {
          reference = job.output;
          continue;
        }
        absl::StatusOr<Comparison> c =
            CompareFramedOutputs(reference, job.output, file_names, StrategyName(strategy));
        if (!c.ok()) return Fail(3, c.status().message());
        RecordComparison(*c, &m);
        if (!scratch_.keep()) RemoveQuietly(job.output);
      }
    }
    if (!scratch_.keep()) RemoveQuietly(reference);

    m.notes.push_back(
        "stock creates a zstd CCtx per file, a deflate stream per block and an inflate stream "
        "per block read, and reuses one zstd DCtx (RocksDB 7.8.3's per-core cache), all "
        "through the counting allocator");
    const RunResult& first = m.stock.front();
    auto metric = [&](const char* key) { return MetricValue(first, key); };
    std::vector<std::string> codecs;
    for (const auto& [name, n] : per_codec) codecs.push_back(absl::StrCat(n, " ", name));
    m.description = absl::StrFormat(
        "%d SST files (%s%s), %s data blocks%s, %s uncompressed -> %s (%.2fx)%s%s",
        job.files.size(), absl::StrJoin(codecs, ", "),
        skipped > 0 ? absl::StrCat("; ", skipped, " skipped") : "",
        FormatCount(metric("source_blocks")),
        settings_.block_size > 0
            ? absl::StrCat(" re-blocked into ", FormatCount(metric("blocks")), " of ",
                           settings_.block_size, " B")
            : "",
        FormatBytes(metric("uncompressed_bytes")), FormatBytes(metric("stored_bytes")),
        MetricValue(first, "ratio"),
        settings_.codec.has_value() ? absl::StrCat(", --codec=", CodecName(*settings_.codec)) : "",
        settings_.level.has_value() ? absl::StrCat(", --level=", *settings_.level) : "");
    report_.modes.push_back(std::move(m));
    return 0;
  }

  int RunCompaction() {
    ModeReport m;
    m.mode = "compaction";
    m.x_label = "seconds into the compaction";
    // Group the inputs by target codec: one column family each.
    std::map<uint8_t, std::vector<size_t>> by_codec;
    std::map<uint8_t, Target> group_target;
    int skipped = 0;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const InputFile& in = inputs_[i];
      Target t = TargetFor(in, settings_);
      if (!t.codec.has_value()) {
        report_.inputs[i].compaction_mode = t.skip_reason;
        m.notes.push_back(absl::StrCat(in.path, ": ", t.skip_reason));
        ++skipped;
        continue;
      }
      by_codec[t.codec->type].push_back(i);
      group_target.emplace(t.codec->type, t);
    }
    if (by_codec.empty()) {
      std::fprintf(stderr, "sst_replay: compaction mode: no file with zstd or zlib data to compact\n");
      units_done_ += 2.0 * settings_.repeat;
      return 0;
    }
    if (!settings_.blocks) {
      // Bad input must fail with the reader's message before RocksDB reads it.
      for (const auto& [codec, indexes] : by_codec) {
        for (size_t i : indexes) {
          bar_.Update(units_done_, absl::StrCat("verifying ", inputs_[i].path));
          if (absl::Status s = VerifyDataBlocks(inputs_[i].path, read_options_); !s.ok()) {
            return Fail(2, s.message());
          }
        }
      }
    }

    Job job;
    job.mode = "compaction";
    job.max_idle_per_key = settings_.max_idle_per_key;
    job.verify_checksums = settings_.verify_checksums;
    int staged = 0;
    std::vector<std::string> group_text;
    for (auto& [codec, indexes] : by_codec) {
      std::sort(indexes.begin(), indexes.end(), [&](size_t a, size_t b) {
        if (inputs_[a].file_number != inputs_[b].file_number) {
          return inputs_[a].file_number < inputs_[b].file_number;
        }
        return inputs_[a].path < inputs_[b].path;
      });
      const InputFile& first = inputs_[indexes.front()];
      CompactionGroup g;
      g.name = CodecName(codec);
      g.codec = *group_target[codec].codec;
      if (!group_target[codec].use_dictionary) g.codec.max_dict_bytes = 0;
      g.format_version = std::clamp<uint32_t>(first.format_version, 2, 5);
      g.checksum = first.checksum;
      g.block_size = settings_.block_size > 0 ? settings_.block_size : 4096;
      int group_staged = 0;
      for (size_t i : indexes) {
        const InputFile& in = inputs_[i];
        job.total_stored_bytes += in.stored_data_bytes;
        if (in.ingestible && in.format_version <= 5) {
          g.files.push_back(in.path);
          report_.inputs[i].compaction_mode = "ingested";
          continue;
        }
        const std::string dir = scratch_.Path(absl::StrCat("staged-", g.name));
        std::error_code ec;
        fs::create_directories(dir, ec);
        const std::string out = absl::StrCat(dir, "/", g.files.size(), ".sst");
        bar_.Update(units_done_, absl::StrCat("staging ", in.path));
        absl::StatusOr<StagedFile> s = StageForIngestion(in.path, read_options_, g, out);
        if (!s.ok()) return Fail(ExitCodeFor(s.status()), s.status().message());
        if (s->empty) {
          report_.inputs[i].compaction_mode = "skipped: no puts or deletions to ingest";
          continue;
        }
        if (s->skipped_entries > 0) {
          m.notes.push_back(absl::StrCat(in.path, ": ", s->skipped_entries,
                                         " merge/blob entries left out of staging"));
        }
        report_.inputs[i].compaction_mode = "staged (rewritten for ingestion) and ingested";
        g.files.push_back(out);
        ++group_staged;
      }
      staged += group_staged;
      if (g.files.empty()) continue;
      group_text.push_back(absl::StrCat(g.name, ": ", g.files.size(), " files"));
      job.groups.push_back(std::move(g));
    }
    if (job.groups.empty()) {
      std::fprintf(stderr, "sst_replay: compaction mode: nothing to ingest\n");
      units_done_ += 2.0 * settings_.repeat;
      return 0;
    }

    OutputList reference;
    std::string reference_dir;
    bool corrupted = false;
    for (int rep = 0; rep < settings_.repeat; ++rep) {
      for (int k = 0; k < 2; ++k) {
        const Strategy strategy = StrategyAt(rep, k);
        job.strategy = strategy;
        job.output = scratch_.Path(absl::StrCat("compaction-", StrategyName(strategy), "-", rep));
        ChildRun run;
        const std::string label = absl::StrCat("compaction ", StrategyName(strategy), " run ",
                                               rep + 1, "/", settings_.repeat);
        if (int rc = RunOne(job, label, &run); rc != 0) return rc;
        const OutputList outputs = run.result.outputs;
        absl::StatusOr<OutputSummary> summary = SummarizeOutputs(outputs, read_options_);
        if (!summary.ok()) return Fail(3, summary.status().message());
        run.result.metrics["uncompressed_bytes"] = static_cast<int64_t>(summary->uncompressed_bytes);
        run.result.metrics["stored_bytes"] = static_cast<int64_t>(summary->stored_bytes);
        run.result.metrics["output_data_blocks"] = static_cast<int64_t>(summary->data_blocks);
        for (const std::string& note : run.result.notes) {
          if (std::find(m.notes.begin(), m.notes.end(), note) == m.notes.end()) m.notes.push_back(note);
        }
        (strategy == Strategy::kStock ? m.stock : m.pooled).push_back(std::move(run.result));
        if (reference.empty() && reference_dir.empty()) {
          reference = outputs;
          reference_dir = job.output;
          continue;
        }
        if (strategy == Strategy::kPooled && !corrupted &&
            absl::GetFlag(FLAGS_testonly_corrupt_pooled_output) && !outputs.empty()) {
          corrupted = true;
          if (absl::Status s = CorruptFirstDataBlock(outputs.front().second, read_options_); !s.ok()) {
            return Fail(3, s.message());
          }
        }
        absl::StatusOr<Comparison> c =
            CompareCompactionOutputs(reference, outputs, read_options_, StrategyName(strategy));
        if (!c.ok()) return Fail(3, c.status().message());
        RecordComparison(*c, &m);
        if (!scratch_.keep()) RemoveQuietly(job.output);
      }
    }
    if (!scratch_.keep()) RemoveQuietly(reference_dir);

    m.notes.insert(m.notes.begin(),
                   absl::StrCat("stock = rockpool's legacy face with measure_stock=true (RocksDB "
                                "creates and frees every context as always, counted); pooled = "
                                "listeners={id=rockpool;max_idle_per_key=",
                                settings_.max_idle_per_key, ";idle_seconds=60}"));
    const RunResult& first = m.stock.front();
    m.description = absl::StrFormat(
        "%d column families (%s%s%s), full compaction -> %d SSTs, %s uncompressed -> %s (%.2fx)",
        job.groups.size(), absl::StrJoin(group_text, ", "),
        staged > 0 ? absl::StrCat("; ", staged, " staged for ingestion") : "",
        skipped > 0 ? absl::StrCat("; ", skipped, " skipped") : "",
        static_cast<int>(MetricValue(first, "output_files")),
        FormatBytes(MetricValue(first, "uncompressed_bytes")),
        FormatBytes(MetricValue(first, "stored_bytes")), MetricValue(first, "ratio"));
    report_.modes.push_back(std::move(m));
    return 0;
  }

  int Finish() {
    bool identical = true;
    for (const ModeReport& m : report_.modes) identical = identical && m.identical;
    report_.exit_code = identical ? 0 : 1;
    if (absl::GetFlag(FLAGS_json)) {
      std::cout << FormatJson(report_);
    } else {
      std::cout << FormatTable(report_);
      for (const ModeReport& m : notes_only_) {
        for (const std::string& note : m.notes) std::cout << "note: " << note << "\n";
      }
    }
    std::cout.flush();
    const std::string svg = absl::GetFlag(FLAGS_svg);
    if (!svg.empty()) {
      if (absl::Status s = WriteTextFile(svg, RenderSvg(report_)); !s.ok()) {
        return Fail(2, absl::StrCat("--svg: ", s.message()));
      }
    }
    for (const ModeReport& m : report_.modes) {
      if (!m.identical) {
        std::fprintf(stderr, "sst_replay: %s mode: pooled output differs from stock: %s\n",
                     m.mode.c_str(), OneLine(m.difference).c_str());
      }
    }
    return report_.exit_code;
  }

  Settings settings_;
  std::vector<std::string> args_;
  ProgressBar bar_;
  Scratch scratch_;
  std::string self_;
  CompressionPools pools_;
  BlockCodecs codecs_;
  sst::SstReadOptions read_options_;
  std::vector<InputFile> inputs_;
  Report report_;
  std::vector<ModeReport> notes_only_;
  int run_counter_ = 0;
  double units_done_ = 0;
};

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
  std::vector<std::string> positional;
  if (int rc = rockpool::replay::ParseFlags(argc, argv, &positional); rc >= 0) return rc;
  if (absl::GetFlag(FLAGS_internal_child)) return rockpool::replay::ChildMain();
  absl::StatusOr<rockpool::replay::Settings> settings = rockpool::replay::ReadSettings();
  if (!settings.ok()) return rockpool::replay::UsageError(settings.status().message());
  // On the heap: the pools inside are over-aligned (alignas(64) slots),
  // which a sanitizer's fake stack does not honour.
  auto parent = std::make_unique<rockpool::replay::Parent>(*std::move(settings), std::move(positional));
  return parent->Run();
}
