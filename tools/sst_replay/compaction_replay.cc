#include "tools/sst_replay/compaction_replay.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "tools/process/usage.h"
#include "tools/sst/rocksdb_calls.h"
#include "tools/sst_replay/blob_inputs.h"
#include "tools/sst_replay/compaction_faces.h"
#include "tools/sst_replay/staging.h"
#include "tools/status/status_macros.h"

namespace rockpool::replay {

using sst::FromRocks;
using sst::OpenDb;

namespace {

// The scratch DB a compaction runs in: closed (handles first) on every way
// out.
struct ScratchDb {
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<rocksdb::DB> db;
  ~ScratchDb() {
    if (db == nullptr) return;
    for (rocksdb::ColumnFamilyHandle* h : handles) db->DestroyColumnFamilyHandle(h);
    db->Close();
  }
};

// A column family to compact, and its name.
using Targets = std::vector<std::pair<rocksdb::ColumnFamilyHandle*, std::string>>;

// The scratch DB's options: one family per group with rockpool's faces
// applied, or (job.source_db) the copied DB's own options, rewritten to
// relocate every blob.
absl::Status ScratchDbOptions(const Job& job, const CompactionFaces& faces,
                              rocksdb::DBOptions* db_options,
                              std::vector<rocksdb::ColumnFamilyDescriptor>* families) {
  if (job.source_db.empty()) {
    db_options->create_if_missing = true;
    db_options->create_missing_column_families = true;
    families->emplace_back(rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions());
    for (const CompactionGroup& g : job.groups) {
      families->emplace_back(g.name, CompactionFamilyOptions(g));
      faces.ApplyTo(&families->back().options);
    }
  } else {
    // The DB with blob files, copied whole (outside the measured window)
    // and opened with its own options.
    ROCKPOOL_RETURN_IF_ERROR(CopyDbDirectory(job.source_db, job.output));
    rocksdb::ConfigOptions config;
    config.ignore_unknown_options = true;
    if (rocksdb::Status s = rocksdb::LoadLatestOptions(config, job.output, db_options, families);
        !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("loading the options of ", job.source_db, ": ", s.ToString()));
    }
    for (rocksdb::ColumnFamilyDescriptor& f : *families) {
      f.options.disable_auto_compactions = true;
      if (f.options.enable_blob_files) {  // garbage collection that rewrites every blob
        f.options.enable_blob_garbage_collection = true;
        f.options.blob_garbage_collection_age_cutoff = 1.0;
      }
      faces.ApplyTo(&f.options);
    }
    db_options->create_if_missing = false;
    db_options->error_if_exists = false;
    db_options->listeners.clear();
  }
  db_options->listeners.push_back(faces.listener());
  db_options->stats_dump_period_sec = 0;
  db_options->stats_persist_period_sec = 0;
  return absl::OkStatus();
}

// Copies of the inputs, one group per family: the originals are never
// moved or written.
absl::Status IngestGroups(const Job& job, const ScratchDb& scratch) {
  rocksdb::IngestExternalFileOptions ingest;
  ingest.move_files = false;
  for (size_t i = 0; i < job.groups.size(); ++i) {
    const CompactionGroup& g = job.groups[i];
    ROCKPOOL_RETURN_IF_ERROR(
        FromRocks(scratch.db->IngestExternalFile(scratch.handles[i + 1], g.files, ingest),
                  absl::StrCat("ingesting into column family ", g.name)));
  }
  return absl::OkStatus();
}

// A full compaction of every target, in order; stops at the first failure.
absl::Status CompactAll(rocksdb::DB* db, const Targets& targets) {
  rocksdb::CompactRangeOptions cro;
  cro.exclusive_manual_compaction = true;
  cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
  for (const auto& [handle, name] : targets) {
    ROCKPOOL_RETURN_IF_ERROR(FromRocks(db->CompactRange(cro, handle, nullptr, nullptr),
                                       absl::StrCat("compacting column family ", name)));
  }
  return absl::OkStatus();
}

// RocksDB's file names may start with '/' (LiveFileMetaData::name).
std::string JoinPath(absl::string_view dir, absl::string_view name) {
  return absl::StrCat(absl::StripSuffix(dir, "/"), "/", absl::StripPrefix(name, "/"));
}

// The SST files the compaction wrote, per target family in key order, then
// its blob files (all of them: GC relocated every blob), for the parent to
// compare.
void AddOutputs(rocksdb::DB* db, const Targets& targets, RunResult* result) {
  std::vector<rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return std::tie(a.column_family_name, a.level, a.smallestkey) <
           std::tie(b.column_family_name, b.level, b.smallestkey);
  });
  const size_t outputs_before = result->outputs.size();
  for (const auto& [handle, name] : targets) {
    for (const rocksdb::LiveFileMetaData& f : files) {
      if (f.column_family_name == name) {
        result->outputs.emplace_back(name, JoinPath(f.db_path, f.name));
      }
    }
  }
  const size_t sst_files = result->outputs.size() - outputs_before;
  std::vector<rocksdb::ColumnFamilyMetaData> metas;
  db->GetAllColumnFamilyMetaData(&metas);
  for (rocksdb::ColumnFamilyMetaData& m : metas) {
    std::sort(m.blob_files.begin(), m.blob_files.end(),
              [](const auto& a, const auto& b) { return a.blob_file_number < b.blob_file_number; });
    for (const rocksdb::BlobMetaData& b : m.blob_files) {
      result->outputs.emplace_back(absl::StrCat("blob:", m.name),
                                   JoinPath(b.blob_file_path, b.blob_file_name));
    }
  }
  result->metrics["output_files"] = static_cast<int64_t>(sst_files);
  result->metrics["output_blob_files"] =
      static_cast<int64_t>(result->outputs.size() - outputs_before - sst_files);
}

bool IsLz4(rocksdb::CompressionType t) {
  return t == rocksdb::kLZ4Compression || t == rocksdb::kLZ4HCCompression;
}

// Whether any family compresses SST blocks or blobs with LZ4 or LZ4HC.
bool UsesLz4(const std::vector<rocksdb::ColumnFamilyDescriptor>& families) {
  for (const rocksdb::ColumnFamilyDescriptor& f : families) {
    const rocksdb::ColumnFamilyOptions& o = f.options;
    if (IsLz4(o.compression) || IsLz4(o.bottommost_compression) ||
        (o.enable_blob_files && IsLz4(o.blob_compression_type)) ||
        std::any_of(o.compression_per_level.begin(), o.compression_per_level.end(), IsLz4)) {
      return true;
    }
  }
  return false;
}

// RocksDB's LZ4 streams reach rockpool's pools only through a legacy face
// that interposes liblz4 (and, on >= 10.4, the native face). Said from what
// a pooled run's LZ4 pools saw, not from the build: the note goes away by
// itself once the face serves them, and stays wherever it does not.
bool Lz4Served(const RunResult& result) {
  return result.metrics.at("pool_lz4_created") + result.metrics.at("pool_lz4_reused") +
             result.metrics.at("pool_lz4hc_created") + result.metrics.at("pool_lz4hc_reused") >
         0;
}

constexpr char kLz4NotServedNote[] =
    "LZ4: no LZ4 stream reached rockpool's pools (the legacy face does not serve liblz4 "
    "here: see \"RocksDB's codec calls\"), so RocksDB's LZ4_createStream[HC] calls run as "
    "stock in both strategies: counted in process bytes, not in codec lib bytes";

}  // namespace

absl::Status RunCompactionReplay(const Job& job, RunResult* result, ProgressSink* progress) {
  // Switch rockpool on for this process, as a RocksDB user would.
  ROCKPOOL_ASSIGN_OR_RETURN(const std::unique_ptr<CompactionFaces> made,
                            CompactionFaces::Create(job.strategy, job.max_idle_per_key));
  const CompactionFaces& faces = *made;

  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  ROCKPOOL_RETURN_IF_ERROR(ScratchDbOptions(job, faces, &db_options, &families));
  ScratchDb scratch;
  if (rocksdb::Status s = OpenDb(db_options, job.output, families, &scratch.handles, &scratch.db);
      !s.ok()) {
    return absl::InternalError(
        absl::StrCat("opening the scratch DB ", job.output, ": ", s.ToString()));
  }
  ROCKPOOL_RETURN_IF_ERROR(IngestGroups(job, scratch));
  // What is compacted: each group's family (after the empty default one),
  // or every family of the copy.
  Targets targets;
  for (size_t i = job.source_db.empty() ? 1 : 0; i < scratch.handles.size(); ++i) {
    targets.emplace_back(scratch.handles[i], families[i].name);
  }

  // The measured window: the full compactions. Meanwhile a thread samples
  // cumulative allocation every 10 ms (the series thins itself, so a long
  // compaction is sampled less often) and reports the output written as
  // progress.
  const uint64_t discarded_before = legacy::DiscardedContexts();
  const PoolStats native_before = faces.NativeStats();
  Window window(faces.Stats());
  const int64_t written_start = process::BytesWritten();
  auto sample = [&] {
    const int64_t wall_ns = process::TakeSnapshot().wall_ns - window.start.wall_ns;
    window.Sample(static_cast<double>(wall_ns) / 1e9, faces.Stats());
  };
  sample();
  std::atomic<bool> compacted{false};
  std::thread sampler([&] {
    while (!compacted.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (window.series.Due()) sample();
      const int64_t written = process::BytesWritten();
      if (job.total_stored_bytes > 0 && written >= 0 && written_start >= 0) {
        progress->Report(std::min(0.99, static_cast<double>(written - written_start) /
                                            static_cast<double>(job.total_stored_bytes)));
      }
    }
  });
  const absl::Status status = CompactAll(scratch.db.get(), targets);
  compacted.store(true);
  sampler.join();
  sample();
  const process::ProcessSnapshot end = process::TakeSnapshot();
  const CompressionPoolsStats pools_after = faces.Stats();
  ROCKPOOL_RETURN_IF_ERROR(status);
  progress->Report(1.0);

  window.AddTo(end, pools_after, result);
  result->metrics["discarded_contexts"] =
      static_cast<int64_t>(legacy::DiscardedContexts() - discarded_before);
  const PoolStats native_after = faces.NativeStats();
  result->metrics["native_leases"] = static_cast<int64_t>(
      native_after.created + native_after.reused - native_before.created - native_before.reused);
  result->notes.push_back(faces.Note());
  if (job.strategy == Strategy::kPooled && UsesLz4(families) && !Lz4Served(*result)) {
    result->notes.push_back(kLz4NotServedNote);
  }
  AddOutputs(scratch.db.get(), targets, result);
  return absl::OkStatus();
}

}  // namespace rockpool::replay
