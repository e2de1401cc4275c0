#include "tools/sst_replay/plan.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compression/compression_type.h"
#include "tools/console/units.h"
#include "tools/sst_replay/report.h"

namespace rockpool::replay {
namespace {

using console::FormatBytes;
using console::FormatCount;

namespace fs = std::filesystem;

// Snappy files are said once per mode, in one note (AddSnappyNote), not one
// per file: they are common (RocksDB's default codec) and nothing in them
// is for rockpool to measure.
void AddSkip(const std::string& path, const std::string& reason, InputVerdicts* verdicts) {
  verdicts->input_status.push_back(reason);
  ++verdicts->skipped;
  if (reason == kSnappySkipReason) {
    ++verdicts->snappy_files;
  } else {
    verdicts->notes.push_back(absl::StrCat(path, ": ", reason));
  }
}

// The one line on the mode's snappy inputs, if there were any.
void AddSnappyNote(InputVerdicts* verdicts) {
  if (verdicts->snappy_files == 0) return;
  verdicts->notes.push_back(absl::StrCat(
      verdicts->snappy_files, verdicts->snappy_files == 1 ? " snappy input" : " snappy inputs",
      " not replayed: snappy has no context to pool (its API takes none: snappy::RawCompress "
      "allocates its working memory inside each call, out of reach of any pool)"));
}

// What an input recorded with `recorded` (and a dictionary if
// `dictionary`), holding `units` data blocks or blobs, is recompressed with,
// or why it is skipped. A blob file records only its type: RocksDB 7.8.3
// compresses blobs with default CompressionOptions
// (BlobFileBuilder::CompressBlobIfNeeded); --codec and --level override as
// for SSTs.
Target TargetOf(const CodecSettings& recorded, bool dictionary, uint64_t units, bool blobs,
                const ReplaySettings& settings) {
  Target t;
  const uint8_t type = recorded.type;
  const uint8_t target = settings.codec.value_or(type);
  if (type == compression_type::kSnappy) {
    t.skip_reason = kSnappySkipReason;
  } else if (!RockpoolDecodes(type)) {
    t.skip_reason = absl::StrCat("skipped: ", CodecName(type), blobs ? " blobs" : " blocks",
                                 " (rockpool pools zstd, zlib and LZ4 contexts; this reader "
                                 "decompresses those only)");
  } else if (target == compression_type::kNone || !RockpoolDecodes(target)) {
    // rockpool pools the contexts of every codec it decodes but none.
    t.skip_reason = blobs ? "skipped: uncompressed blobs (pass --codec=zstd, zlib, lz4 or lz4hc "
                            "to replay them compressed)"
                          : "skipped: uncompressed (pass --codec=zstd, zlib, lz4 or lz4hc to "
                            "replay it compressed)";
  } else if (units == 0) {
    t.skip_reason = blobs ? "skipped: no blobs" : "skipped: no data blocks";
  }
  if (!t.skip_reason.empty()) return t;
  CodecSettings c = recorded;
  if (target != type) {
    c = CodecSettings();
    c.type = target;
    c.parallel_threads = recorded.parallel_threads;  // the DB's setting, not the codec's
  }
  t.use_dictionary = dictionary && target == type;
  if (settings.level.has_value()) c.level = *settings.level;
  t.codec = c;
  return t;
}

// `t` if it has a codec; else records why the input is skipped.
std::optional<Target> Accept(const std::string& path, Target t, const char* accepted,
                             InputVerdicts* verdicts) {
  if (!t.codec.has_value()) {
    AddSkip(path, t.skip_reason, verdicts);
    return std::nullopt;
  }
  verdicts->input_status.emplace_back(accepted);
  return t;
}

// "11 SST files (4 zlib, 7 zstd)"
std::string FilesText(const std::map<std::string, int>& per_codec, const char* kind) {
  int files = 0;
  std::vector<std::string> codecs;
  for (const auto& [codec, n] : per_codec) {
    files += n;
    codecs.push_back(absl::StrCat(n, " ", codec));
  }
  return absl::StrCat(files, " ", kind, " files (", absl::StrJoin(codecs, ", "), ")");
}

// "32.2 MiB uncompressed -> 9.05 MiB (3.56x)", of a mode's first stock run.
std::string SizesText(const RunResult& first) {
  return absl::StrFormat(
      "%s uncompressed -> %s (%.2fx)", FormatBytes(MetricValue(first, "uncompressed_bytes")),
      FormatBytes(MetricValue(first, "stored_bytes")), MetricValue(first, "ratio"));
}

}  // namespace

Target TargetFor(const InputFile& in, const ReplaySettings& settings) {
  return TargetOf(in.codec, in.has_dictionary, in.data_blocks, /*blobs=*/false, settings);
}

Strategy StrategyAt(int rep, int k) {
  const bool stock_first = rep % 2 == 0;
  return (k == 0) == stock_first ? Strategy::kStock : Strategy::kPooled;
}

BlocksPlan PlanBlocks(const std::vector<InputFile>& inputs, const std::vector<BlobInput>& blobs,
                      const ReplaySettings& settings) {
  BlocksPlan plan;
  plan.job.mode = "blocks";
  plan.job.max_idle_per_key = settings.max_idle_per_key;
  plan.job.verify_checksums = settings.verify_checksums;
  plan.job.block_size = settings.block_size;
  // An input of `units` data blocks or blobs, `stored` bytes of them.
  auto add = [&](const std::string& path, const Target& target, uint64_t units, uint64_t stored,
                 bool blob) {
    const std::optional<Target> t = Accept(path, target, "replayed", &plan);
    if (!t.has_value()) return;
    (blob ? plan.job.blobs : plan.job.files).push_back({path, *t->codec, t->use_dictionary});
    plan.job.total_blocks += units;
    plan.job.total_stored_bytes += stored;
    if (blob) plan.blob_records += units;
    ++(blob ? plan.blob_per_codec : plan.per_codec)[CodecName(t->codec->type)];
    plan.parallel = plan.parallel || t->codec->parallel_threads > 1;
    plan.file_names.push_back(path);
  };
  for (const InputFile& in : inputs) {
    add(in.path, TargetFor(in, settings), in.data_blocks, in.stored_data_bytes, false);
  }
  for (const BlobInput& in : blobs) {
    CodecSettings recorded;  // RocksDB's default CompressionOptions
    recorded.type = in.compression;
    add(in.path, TargetOf(recorded, /*dictionary=*/false, in.records, /*blobs=*/true, settings),
        in.records, in.stored_value_bytes, true);
  }
  AddSnappyNote(&plan);
  return plan;
}

std::vector<std::string> StockNotes(const StockPattern& pattern, const BlocksPlan& plan) {
  auto any = [](const std::map<std::string, int>& per_codec, const char* a, const char* b) {
    return per_codec.contains(a) || per_codec.contains(b);
  };
  std::vector<std::string> notes;
  if (any(plan.per_codec, "zstd", "zlib")) notes.push_back(SstStockNote(pattern, plan.parallel));
  if (any(plan.blob_per_codec, "zstd", "zlib")) notes.push_back(BlobStockNote(pattern));
  if (any(plan.per_codec, "lz4", "lz4hc") || any(plan.blob_per_codec, "lz4", "lz4hc")) {
    notes.push_back(Lz4StockNote(pattern));
  }
  return notes;
}

DbCopyPlan PlanDbCopy(const std::vector<std::string>& paths,
                      const std::vector<std::string>& blob_dbs) {
  DbCopyPlan plan;
  if (blob_dbs.empty()) return plan;
  plan.db = blob_dbs.front();
  std::error_code ec;
  const fs::path db = fs::weakly_canonical(plan.db, ec);
  for (const std::string& p : paths) {
    if (fs::weakly_canonical(p, ec).parent_path() == db) {
      plan.input_status.emplace_back("");
      continue;
    }
    AddSkip(p,
            absl::StrCat("skipped: compaction mode copies the DB with blob files ", plan.db,
                         " whole and compacts only that (ingestion would drop blob references); "
                         "replay this input on its own"),
            &plan);
  }
  return plan;
}

bool IngestibleAsIs(const InputFile& in) { return in.ingestible && in.format_version <= 5; }

CompactionPlan PlanCompaction(const std::vector<InputFile>& inputs,
                              const ReplaySettings& settings) {
  CompactionPlan plan;
  std::map<uint8_t, PlannedGroup> by_codec;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::optional<Target> t =
        Accept(inputs[i].path, TargetFor(inputs[i], settings), "", &plan);
    if (!t.has_value()) continue;
    auto [it, first] = by_codec.try_emplace(t->codec->type);
    PlannedGroup& g = it->second;
    if (first) {
      // The group's options come from its first input in argument order.
      g.group.name = CodecName(t->codec->type);
      g.group.codec = *t->codec;
      if (!t->use_dictionary) g.group.codec.max_dict_bytes = 0;
      g.group.block_size = settings.block_size > 0 ? settings.block_size : 4096;
    }
    g.inputs.push_back(i);
  }
  for (auto& [codec, g] : by_codec) {
    // Oldest first, as RocksDB numbers its files: the scratch DB then sees
    // overwrites in the order the source DB did.
    std::sort(g.inputs.begin(), g.inputs.end(), [&](size_t a, size_t b) {
      return std::tie(inputs[a].file_number, inputs[a].path) <
             std::tie(inputs[b].file_number, inputs[b].path);
    });
    const InputFile& oldest = inputs[g.inputs.front()];
    g.group.format_version = std::clamp<uint32_t>(oldest.format_version, 2, 5);
    g.group.checksum = oldest.checksum;
    plan.groups.push_back(std::move(g));
  }
  AddSnappyNote(&plan);
  return plan;
}

std::string BlocksDescription(const BlocksPlan& plan, const RunResult& first,
                              const ReplaySettings& replay) {
  auto metric = [&](const char* key) { return MetricValue(first, key); };
  std::vector<std::string> parts;
  if (!plan.per_codec.empty()) {
    parts.push_back(absl::StrCat(
        FilesText(plan.per_codec, "SST"), ", ", FormatCount(metric("source_blocks")),
        " data blocks",
        replay.block_size > 0 ? absl::StrCat(" re-blocked into ", FormatCount(metric("blocks")),
                                             " of ", replay.block_size, " B")
                              : ""));
  }
  if (!plan.blob_per_codec.empty()) {
    parts.push_back(absl::StrCat(FilesText(plan.blob_per_codec, "blob"), ", ",
                                 FormatCount(metric("blobs")), " blobs"));
  }
  if (plan.skipped > 0) parts.push_back(absl::StrCat(plan.skipped, " inputs skipped"));
  return absl::StrCat(
      absl::StrJoin(parts, ", "), ", ", SizesText(first),
      replay.codec.has_value() ? absl::StrCat(", --codec=", CodecName(*replay.codec)) : "",
      replay.level.has_value() ? absl::StrCat(", --level=", *replay.level) : "");
}

std::string CompactionDescription(const std::vector<std::string>& group_text, int staged,
                                  int skipped, const RunResult& first) {
  return absl::StrFormat("%d column families (%s%s%s), full compaction -> %.0f SSTs, %s",
                         group_text.size(), absl::StrJoin(group_text, ", "),
                         staged > 0 ? absl::StrCat("; ", staged, " staged for ingestion") : "",
                         skipped > 0 ? absl::StrCat("; ", skipped, " skipped") : "",
                         MetricValue(first, "output_files"), SizesText(first));
}

std::string DbCopyDescription(const DbCopyPlan& plan, int ssts, int blob_files,
                              const RunResult& first) {
  return absl::StrFormat(
      "DB with blob files %s (%d SSTs, %d blob files%s), full compaction with blob GC -> %.0f "
      "SSTs + %.0f blob files (%s blobs), %s",
      plan.db, ssts, blob_files,
      plan.skipped > 0 ? absl::StrCat("; ", plan.skipped, " other inputs skipped") : "",
      MetricValue(first, "output_files"), MetricValue(first, "output_blob_files"),
      FormatCount(MetricValue(first, "output_blobs")), SizesText(first));
}

}  // namespace rockpool::replay
