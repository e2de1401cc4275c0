#include "tools/sst_replay/session.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <system_error>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compression/block_codecs.h"
#include "compression/compression_pools.h"
#include "rocksdb/version.h"
#include "rocksdb_plugin/own_file.h"
#include "tools/process/allocator_choice.h"
#include "tools/process/malloc_counts.h"
#include "tools/sst/codec_decompressor.h"
#include "tools/sst/options_file.h"
#include "tools/sst/sst_file.h"
#include "tools/sst_replay/blob_inputs.h"
#include "tools/sst_replay/child_runs.h"
#include "tools/sst_replay/child_support.h"
#include "tools/sst_replay/compaction_faces.h"
#include "tools/sst_replay/inputs.h"
#include "tools/sst_replay/plan.h"
#include "tools/sst_replay/report.h"
#include "tools/sst_replay/rocksdb_version.h"
#include "tools/sst_replay/scratch_room.h"
#include "tools/sst_replay/staging.h"
#include "tools/sst_replay/stock_patterns.h"
#include "tools/sst_replay/workload.h"
#include "tools/status/status_macros.h"

namespace rockpool::replay {
namespace {

namespace fs = std::filesystem;

class Session {
 public:
  Session(const Settings& settings, std::vector<std::string> args)
      : settings_(settings),
        replay_(settings.replay),
        args_(std::move(args)),
        bar_(settings.progress && ::isatty(STDERR_FILENO) == 1),
        codecs_(&pools_) {
    read_options_.verify_checksums = replay_.verify_checksums;
    read_options_.decompressor = sst::MakeBlockCodecsDecompressor(&codecs_);
  }

  int Run() {
    if (absl::Status s = Replay(); !s.ok()) return Fail(s);
    bar_.Clear();
    return Finish();
  }

 private:
  // Every step; a failure's code sets the exit code (ExitCodeFor).
  absl::Status Replay() {
    ROCKPOOL_ASSIGN_OR_RETURN(
        process::AllocatorSelection allocators,
        BadInput(process::SelectAllocators(kAllocatorFlag, settings_.allocator)));
    allocators_ = std::move(allocators.allocators);
    report_.allocator_flag = settings_.allocator;
    report_.allocator_notes = std::move(allocators.notes);
    ROCKPOOL_RETURN_IF_ERROR(BadInput(scratch_.Create(settings_.tmpdir, settings_.keep_tmp)));
    std::error_code ec;
    self_ = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return absl::InternalError(absl::StrCat("readlink /proc/self/exe: ", ec.message()));
    report_.repeat = replay_.repeat;
    report_.malloc_counter_active = process::MallocCounterActive();
    if (args_.empty()) ROCKPOOL_RETURN_IF_ERROR(AsInternal(GenerateWorkload()));
    ROCKPOOL_RETURN_IF_ERROR(BadInput(ReadInputs()));
    ROCKPOOL_RETURN_IF_ERROR(BadInput(ChooseStockPattern()));
    const int modes = (replay_.blocks ? 1 : 0) + (replay_.compaction ? 1 : 0);
    bar_.SetTotal(RunsPerMode() * modes);
    if (replay_.blocks) ROCKPOOL_RETURN_IF_ERROR(RunBlocks());
    if (replay_.compaction) ROCKPOOL_RETURN_IF_ERROR(RunCompaction());
    return absl::OkStatus();
  }

  // Scans every input file (SSTs with the reader, blob files with the blob
  // parser) and gives each SST its family's parallel_threads. That is not
  // recorded in SST files: each takes its family's value from the newest
  // OPTIONS file beside it (1 without one).
  absl::Status ReadInputs() {
    ROCKPOOL_ASSIGN_OR_RETURN(const std::vector<std::string> paths, ResolveInputs(args_));
    for (const std::string& path : paths) {
      bar_.Update(0, absl::StrCat("reading ", path));
      if (IsBlobPath(path)) {
        ROCKPOOL_ASSIGN_OR_RETURN(blob_inputs_.emplace_back(), ScanBlobFile(path));
      } else {
        ROCKPOOL_ASSIGN_OR_RETURN(inputs_.emplace_back(), ScanFile(path, read_options_));
      }
    }
    for (InputFile& in : inputs_) {
      const sst::OptionsFileInfo* options = options_files_.Beside(in.path);
      if (options == nullptr) continue;
      in.codec.parallel_threads = sst::ParallelThreadsOf(*options, in.column_family);
      if (absl::c_none_of(sst_options_, [&](const auto& o) { return o.path == options->path; })) {
        sst_options_.push_back(*options);
      }
    }
    report_.inputs = InputReports(inputs_, blob_inputs_);
    return absl::OkStatus();
  }

  // What compaction mode's stock and pooled runs are.
  std::string CompactionModesNote() const {
    const std::string built = rocksdb::GetRocksVersionAsString();
    std::string pattern;
    if (report_.pattern.pattern != nullptr) {
      absl::StatusOr<const StockPattern*> own = PatternForVersion(built);
      if (!own.ok() || *own != report_.pattern.pattern) {
        pattern = absl::StrCat(" (not RocksDB ", report_.pattern.version,
                               ", whose pattern blocks mode replays)");
      }
    }
    return absl::StrCat("compaction mode runs RocksDB ", built,
                        ", the librocksdb sst_replay is built with", pattern, "; ",
                        CompactionFaces::Describe(replay_.max_idle_per_key));
  }

  // Blocks mode's stock pattern: --rocksdb_version or the inputs' (exit 2 if unknown).
  absl::Status ChooseStockPattern() {
    if (!replay_.blocks || (inputs_.empty() && blob_inputs_.empty())) return absl::OkStatus();
    std::vector<VersionInput> files;
    for (const InputFile& in : inputs_) {
      files.push_back({in.path, false, in.format_version, in.compression_manager});
    }
    for (const BlobInput& in : blob_inputs_) files.push_back({in.path, true, 0});
    ROCKPOOL_ASSIGN_OR_RETURN(report_.pattern,
                              ChoosePattern(settings_.rocksdb_version, files, &options_files_));
    PatternChoice& r = report_.pattern;
    absl::c_move(ParallelCompressionNotes(*r.pattern, sst_options_), std::back_inserter(r.notes));
    if (std::string n = CompressionManagerNote(r); !n.empty()) r.notes.push_back(n);
    return absl::OkStatus();
  }

  int Fail(int code, absl::string_view message) {
    bar_.Clear();
    std::fprintf(stderr, "sst_replay: %s\n", OneLine(message).c_str());
    return code;
  }
  int Fail(const absl::Status& s) { return Fail(ExitCodeFor(s), s.message()); }

  ChildContext Context() {
    return ChildContext{self_,  &scratch_,      &bar_,         &units_done_,
                        &runs_, replay_.repeat, &read_options_};
  }
  absl::Status RunAll(std::unique_ptr<ModeRuns> runs, ModeReport* m) {
    const AlternatingOptions options{replay_.repeat, scratch_.keep(), allocators_};
    return RunAlternating(*runs, options, m);
  }

  double RunsPerMode() const {
    return 2.0 * replay_.repeat * static_cast<double>(allocators_.size());
  }

  absl::Status GenerateWorkload() {
    const std::string dir = scratch_.Path("default_workload");
    bar_.Update(0, "generating the default workload");
    ROCKPOOL_ASSIGN_OR_RETURN(const WorkloadStats stats,
                              GenerateDefaultWorkload(dir, settings_.workload_mb));
    report_.default_workload = true;
    report_.workload_description = DescribeWorkload(stats);
    args_.push_back(dir);
    return absl::OkStatus();
  }

  absl::Status RunBlocks() {
    BlocksPlan plan = PlanBlocks(inputs_, blob_inputs_, replay_);
    SetVerdicts(plan, &InputReport::blocks_mode);
    if (plan.job.files.empty() && plan.job.blobs.empty()) {
      plan.notes.push_back("nothing to replay in blocks mode");
      return NothingToRun(plan.notes, "blocks mode: no file with zstd, zlib or LZ4 data");
    }
    plan.job.pattern = report_.pattern.pattern->key;
    ModeReport m;
    m.mode = "blocks";
    m.stock_is = absl::StrCat("RocksDB ", report_.pattern.version);
    m.x_label = "uncompressed MiB replayed";
    m.notes = plan.notes;
    for (std::string& n : StockNotes(*report_.pattern.pattern, plan)) m.notes.push_back(n);
    ROCKPOOL_RETURN_IF_ERROR(
        RunAll(MakeBlocksRuns(Context(), std::move(plan.job), plan.file_names), &m));
    m.description = BlocksDescription(plan, m.stock.front(), replay_);
    report_.modes.push_back(std::move(m));
    return absl::OkStatus();
  }

  // The plan's verdict on each input (SSTs, then blob files) into the
  // report's `column`; "" (planned) is left for the mode to fill in.
  void SetVerdicts(const InputVerdicts& plan, std::string InputReport::*column) {
    for (size_t i = 0; i < plan.input_status.size(); ++i) {
      if (!plan.input_status[i].empty()) report_.inputs[i].*column = plan.input_status[i];
    }
  }

  absl::Status RunCompaction() {
    const std::vector<std::string> blob_dbs = BlobDbDirectories(args_);
    if (!blob_dbs.empty()) return RunDbCopyCompaction(blob_dbs);
    CompactionPlan plan = PlanCompaction(inputs_, replay_);
    for (const BlobInput& in : blob_inputs_) {
      plan.input_status.push_back(kLoneBlobSkipReason);
      plan.notes.push_back(absl::StrCat(in.path, ": ", kLoneBlobSkipReason));
    }
    SetVerdicts(plan, &InputReport::compaction_mode);
    if (plan.groups.empty()) {  // the notes say why each input was skipped
      return NothingToRun(plan.notes,
                          "compaction mode: no file with zstd, zlib or LZ4 data to compact");
    }
    for (const PlannedGroup& g : plan.groups) {
      for (size_t i : g.inputs) ROCKPOOL_RETURN_IF_ERROR(VerifyBeforeRocksDb(i));
    }
    // The job's column families: each group's inputs, ingested as they are or
    // staged first; empty groups dropped.
    Job job;
    int staged = 0;
    std::vector<std::string> group_text;
    std::vector<std::string> ingested;  // move_files=false: each run copies these into its DB
    for (PlannedGroup& planned : plan.groups) {
      CompactionGroup& g = planned.group;
      for (size_t i : planned.inputs) {
        job.total_stored_bytes += inputs_[i].stored_data_bytes;
        std::string& verdict = report_.inputs[i].compaction_mode;
        ROCKPOOL_ASSIGN_OR_RETURN(verdict, AddToGroup(inputs_[i], &plan.notes, &g));
        if (absl::StartsWith(verdict, "staged")) ++staged;
      }
      if (g.files.empty()) continue;
      group_text.push_back(absl::StrCat(g.name, ": ", g.files.size(), " files"));
      ingested.insert(ingested.end(), g.files.begin(), g.files.end());
      job.groups.push_back(std::move(g));
    }
    if (job.groups.empty()) return NothingToRun({}, "compaction mode: nothing to ingest");
    return RunCompactionJob(std::move(job), FileBytes(ingested), std::move(plan.notes),
                            [&](const RunResult& r) {
                              return CompactionDescription(group_text, staged, plan.skipped, r);
                            });
  }

  // Both kinds of compaction job from the room check on: `bytes_per_copy`
  // is what each run copies in; `notes` are the mode's so far; `describe`
  // words the mode from the first stock run.
  absl::Status RunCompactionJob(Job job, uint64_t bytes_per_copy, std::vector<std::string> notes,
                                absl::FunctionRef<std::string(const RunResult&)> describe) {
    ROCKPOOL_RETURN_IF_ERROR(BadInput(CheckCompactionRoom(bytes_per_copy)));
    job.mode = "compaction";
    job.max_idle_per_key = replay_.max_idle_per_key;
    job.verify_checksums = replay_.verify_checksums;
    notes.insert(notes.begin(), CompactionModesNote());
    ModeReport m;
    m.mode = "compaction";
    m.stock_is = absl::StrCat("RocksDB ", rocksdb::GetRocksVersionAsString());
    m.x_label = "seconds into the compaction";
    m.notes = std::move(notes);
    ROCKPOOL_RETURN_IF_ERROR(RunAll(MakeCompactionRuns(Context(), std::move(job), &m), &m));
    m.description = describe(m.stock.front());
    report_.modes.push_back(std::move(m));
    return absl::OkStatus();
  }

  // Compaction mode without blocks mode before it: input `i` (SSTs, then
  // blob files) read and checked, so bad input fails with the reader's
  // message (exit 2) before RocksDB reads it.
  absl::Status VerifyBeforeRocksDb(size_t i) {
    if (replay_.blocks) return absl::OkStatus();
    const std::string& path = report_.inputs[i].path;
    bar_.Update(units_done_, absl::StrCat("verifying ", path));
    return BadInput(i >= inputs_.size() ? VerifyBlobValues(path, codecs_)
                                        : VerifyDataBlocks(path, read_options_));
  }

  // A mode with nothing to run: its `notes` follow the table, its runs count
  // as done for the bar.
  absl::Status NothingToRun(const std::vector<std::string>& notes, const char* why) {
    std::fprintf(stderr, "sst_replay: %s\n", why);
    notes_only_.insert(notes_only_.end(), notes.begin(), notes.end());
    units_done_ += RunsPerMode();
    return absl::OkStatus();
  }

  // Adds `in` to `g` as it is, or staged (rewritten for ingestion); returns
  // what happened to it, for the report.
  absl::StatusOr<std::string> AddToGroup(const InputFile& in, std::vector<std::string>* notes,
                                         CompactionGroup* g) {
    if (IngestibleAsIs(in)) {
      g->files.push_back(in.path);
      return "ingested";
    }
    const std::string dir = scratch_.Path(absl::StrCat("staged-", g->name));
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::string out = absl::StrCat(dir, "/", g->files.size(), ".sst");
    bar_.Update(units_done_, absl::StrCat("staging ", in.path));
    ROCKPOOL_ASSIGN_OR_RETURN(const StagedFile s,
                              StageForIngestion(in.path, read_options_, *g, out));
    if (s.empty) return "skipped: no puts or deletions to ingest";
    if (s.skipped_entries > 0) {
      notes->push_back(absl::StrCat(in.path, ": ", s.skipped_entries,
                                    " merge/blob entries left out of staging"));
    }
    g->files.push_back(out);
    return "staged (rewritten for ingestion) and ingested";
  }

  // Says in one line what compaction mode's copies will take in the scratch
  // directory; an error when its file system has no room for them.
  absl::Status CheckCompactionRoom(uint64_t bytes_per_copy) {
    ROCKPOOL_ASSIGN_OR_RETURN(const uint64_t free,
                              settings_.scratch_free_bytes >= 0
                                  ? static_cast<uint64_t>(settings_.scratch_free_bytes)
                                  : FreeBytes(scratch_.dir()));
    const ScratchRoom room =
        PlanScratchRoom(bytes_per_copy, static_cast<int>(RunsPerMode()), scratch_.keep(), free);
    ROCKPOOL_RETURN_IF_ERROR(CheckScratchRoom(room, scratch_.dir()));
    bar_.Clear();
    std::fprintf(stderr, "sst_replay: %s\n", DescribeScratchRoom(room, scratch_.dir()).c_str());
    return absl::OkStatus();
  }

  // compaction mode on a DB with blob files: the DB copied whole per run
  // (compaction_replay.h), every family compacted, blobs rewritten.
  absl::Status RunDbCopyCompaction(const std::vector<std::string>& blob_dbs) {
    std::vector<std::string> paths;  // SSTs, then blob files
    for (const InputReport& in : report_.inputs) paths.push_back(in.path);
    DbCopyPlan plan = PlanDbCopy(paths, blob_dbs);
    SetVerdicts(plan, &InputReport::compaction_mode);
    Job job;
    job.source_db = plan.db;
    int ssts = 0;
    int blob_files = 0;
    for (size_t i = 0; i < paths.size(); ++i) {
      if (!plan.input_status[i].empty()) continue;
      report_.inputs[i].compaction_mode = "copied with its DB and compacted";
      ROCKPOOL_RETURN_IF_ERROR(VerifyBeforeRocksDb(i));
      const bool sst = i < inputs_.size();
      ++(sst ? ssts : blob_files);
      job.total_stored_bytes +=
          sst ? inputs_[i].stored_data_bytes : blob_inputs_[i - inputs_.size()].stored_value_bytes;
    }
    ROCKPOOL_ASSIGN_OR_RETURN(const uint64_t db_bytes, BadInput(DbCopyBytes(plan.db)));
    if (replay_.codec.has_value() || replay_.level.has_value() || replay_.block_size > 0) {
      plan.notes.push_back(
          "--codec, --level and --block_size do not apply here: the copied DB compacts with its "
          "own options");
    }
    plan.notes.push_back(
        "the DB has blob files: copied whole for every run (outside the measured window) and "
        "compacted with enable_blob_garbage_collection=true, "
        "blob_garbage_collection_age_cutoff=1.0, so every blob is rewritten");
    return RunCompactionJob(
        std::move(job), db_bytes, std::move(plan.notes),
        [&](const RunResult& r) { return DbCopyDescription(plan, ssts, blob_files, r); });
  }

  int Finish() {
    report_.exit_code =
        absl::c_all_of(report_.modes, [](const ModeReport& m) { return m.identical; }) ? 0 : 1;
    if (settings_.json) {
      std::cout << FormatJson(report_);
    } else {
      std::cout << FormatTable(report_);
      for (const std::string& note : notes_only_) std::cout << "note: " << note << "\n";
    }
    std::cout.flush();
    if (!settings_.svg.empty()) {
      if (absl::Status s = ReplaceOwnFile(settings_.svg, RenderSvg(report_)); !s.ok()) {
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

  const Settings settings_;
  const ReplaySettings replay_;
  std::vector<std::string> args_;
  console::ProgressBar bar_;
  Scratch scratch_;
  std::string self_;
  CompressionPools pools_;  // for reading the inputs (checksums, scanning)
  BlockCodecs codecs_;
  sst::SstReadOptions read_options_;
  std::vector<InputFile> inputs_;
  sst::OptionsFiles options_files_;                // read once per input directory
  std::vector<sst::OptionsFileInfo> sst_options_;  // those beside the SST inputs, in input order
  std::vector<BlobInput> blob_inputs_;
  Report report_;
  std::vector<std::string> notes_only_;               // of the modes with nothing to run
  std::vector<process::AllocatorChoice> allocators_;  // --allocator, in run order
  int runs_ = 0;
  double units_done_ = 0;
};

}  // namespace

int RunSession(const Settings& settings, std::vector<std::string> inputs) {
  return Session(settings, std::move(inputs)).Run();
}

}  // namespace rockpool::replay
