#include "tools/sst_replay/rocksdb_version.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/sst/options_file.h"
#include "tools/status/status_macros.h"

namespace rockpool::replay {

using sst::OptionsFileInfo;
using sst::OptionsFiles;

namespace {

// Appends `value` unless `list` holds it already (first seen, first listed).
void AddUnique(std::vector<std::string>* list, std::string_view value) {
  if (std::find(list->begin(), list->end(), value) == list->end()) list->emplace_back(value);
}

constexpr char kAsk[] =
    "pass --rocksdb_version=<the RocksDB that runs this data> (6.29, 7.8, 8, 9, 10, 11 or a "
    "version such as 11.8.1)";

// What the inputs say of the RocksDB that wrote them, per directory looked in.
struct FoundInDirectory {
  const StockPattern* pattern = nullptr;
  OptionsFileInfo options;
};
struct InputsSay {
  std::map<std::string, FoundInDirectory> by_dir;
  std::vector<std::string> unknown;  // inputs nothing tells the version of
  bool format7 = false;              // SSTs that prove RocksDB >= 10.4
  std::vector<std::string> sst_managers;
  // version -> the OPTIONS files that record it
  std::map<std::string, std::vector<std::string>> versions;
};

// The OPTIONS file of `in`'s directory, if it records a version.
absl::StatusOr<FoundInDirectory> ReadDirectory(const VersionInput& in,
                                               OptionsFiles* options_files) {
  const OptionsFileInfo* options = options_files->Beside(in.path);
  FoundInDirectory f;
  if (options == nullptr || options->rocksdb_version.empty()) return f;
  f.options = *options;
  absl::StatusOr<const StockPattern*> p = PatternForVersion(options->rocksdb_version);
  if (!p.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        options->path, " records rocksdb_version=", options->rocksdb_version,
        ", which sst_replay has no call pattern for: ", kAsk, " to replay it as another"));
  }
  f.pattern = *p;
  return f;
}

absl::StatusOr<InputsSay> ReadWhatInputsSay(const std::vector<VersionInput>& files,
                                            OptionsFiles* options_files) {
  InputsSay say;
  for (const VersionInput& in : files) {
    if (!in.compression_manager.empty()) AddUnique(&say.sst_managers, in.compression_manager);
    const std::string dir = sst::DirectoryOf(in.path);
    auto it = say.by_dir.find(dir);
    if (it == say.by_dir.end()) {
      ROCKPOOL_ASSIGN_OR_RETURN(FoundInDirectory f, ReadDirectory(in, options_files));
      it = say.by_dir.emplace(dir, std::move(f)).first;
    }
    if (it->second.pattern != nullptr) continue;
    if (!in.is_blob && (in.format_version >= 7 || !in.compression_manager.empty())) {
      say.format7 = true;
    } else {
      say.unknown.push_back(in.path);
    }
  }
  for (const auto& [dir, f] : say.by_dir) {
    if (f.pattern != nullptr) say.versions[f.options.rocksdb_version].push_back(f.options.path);
  }
  return say;
}

// --rocksdb_version given: its pattern, with a note per OPTIONS file that
// records a version of another pattern.
absl::Status ChooseAsAsked(const std::string& flag, const InputsSay& say, PatternChoice* c) {
  ROCKPOOL_ASSIGN_OR_RETURN(c->pattern, PatternForVersion(flag));
  c->version = flag;
  c->source = "--rocksdb_version";
  for (const auto& [version, paths] : say.versions) {
    absl::StatusOr<const StockPattern*> found = PatternForVersion(version);
    if (found.ok() && *found != c->pattern) {
      c->notes.push_back(absl::StrCat(paths.front(), " records rocksdb_version=", version,
                                      "; replaying --rocksdb_version=", flag,
                                      "'s pattern as asked"));
    }
  }
  return absl::OkStatus();
}

// The one pattern the OPTIONS files record, if they agree.
absl::Status ChooseFromOptionsFiles(const InputsSay& say, PatternChoice* c) {
  std::map<std::string, std::string> patterns;  // pattern key -> "version (OPTIONS file)"
  for (const auto& [version, paths] : say.versions) {
    const StockPattern* p = *PatternForVersion(version);
    patterns[p->key] = absl::StrCat(version, " (", paths.front(), ")");
    c->pattern = p;
    c->version = version;
    c->source = paths.size() == 1
                    ? paths.front()
                    : absl::StrCat(paths.front(), " and ", paths.size() - 1, " more OPTIONS files");
  }
  if (patterns.size() <= 1) return absl::OkStatus();
  std::vector<std::string> which;
  for (const auto& [key, text] : patterns) which.push_back(text);
  return absl::InvalidArgumentError(
      absl::StrCat("the inputs were last opened by RocksDB versions with different call patterns: ",
                   absl::StrJoin(which, ", "), "; replay them separately or ", kAsk));
}

// SSTs that prove RocksDB >= 10.4: 10.4's pattern unless an OPTIONS file
// names one; an OPTIONS file naming an older RocksDB contradicts them.
absl::Status ApplyFormat7(const InputsSay& say, PatternChoice* c) {
  if (c->pattern != nullptr && !c->pattern->separate_index_context) {
    return absl::InvalidArgumentError(
        absl::StrCat("SST files of format_version 7 or with a compression manager (RocksDB >= "
                     "10.4) beside ",
                     c->source, " which records RocksDB ", c->version, ": ", kAsk));
  }
  if (c->pattern != nullptr) return absl::OkStatus();
  const bool managers = !say.sst_managers.empty();
  c->pattern = *PatternForVersion("10.4");
  c->version = "10.4 or later";
  c->source =
      managers ? "the SST files' recorded compression manager" : "the SST files' format_version 7";
  c->notes.push_back(absl::StrCat(
      managers ? "a recorded compression manager" : "format_version 7",
      " proves RocksDB >= 10.4; 10.4 to 11.x build SST files with the same contexts; pass "
      "--rocksdb_version to name the exact version"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PatternChoice> ChoosePattern(const std::string& flag,
                                            const std::vector<VersionInput>& files,
                                            OptionsFiles* options_files) {
  OptionsFiles own;
  if (options_files == nullptr) options_files = &own;
  ROCKPOOL_ASSIGN_OR_RETURN(const InputsSay say, ReadWhatInputsSay(files, options_files));
  PatternChoice c;
  for (const auto& [dir, f] : say.by_dir) {  // none where no version is recorded
    for (const std::string& m : f.options.compression_managers) {
      AddUnique(&c.compression_managers, m);
    }
  }
  for (const std::string& m : say.sst_managers) AddUnique(&c.compression_managers, m);
  if (flag != "auto") {
    ROCKPOOL_RETURN_IF_ERROR(ChooseAsAsked(flag, say, &c));
    return c;
  }
  if (!say.unknown.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "which RocksDB wrote ", say.unknown.front(),
        say.unknown.size() > 1 ? absl::StrCat(" (and ", say.unknown.size() - 1, " more inputs)")
                               : "",
        "? No OPTIONS file beside it records rocksdb_version (SST and blob files do not say "
        "which RocksDB writes them; stock's call pattern depends on it): ",
        kAsk));
  }
  ROCKPOOL_RETURN_IF_ERROR(ChooseFromOptionsFiles(say, &c));
  if (say.format7) ROCKPOOL_RETURN_IF_ERROR(ApplyFormat7(say, &c));
  if (c.pattern == nullptr) return absl::InvalidArgumentError(absl::StrCat("no inputs: ", kAsk));
  return c;
}

std::string PatternHeader(const PatternChoice& c) {
  const bool from_options = c.source.find("OPTIONS") != std::string::npos;
  return absl::StrCat("stock = ", DescribePattern(*c.pattern, c.version), ", from ", c.source,
                      from_options ? ": the figures are for the RocksDB that last opened the DB"
                      : c.source == "--rocksdb_version"
                          ? ": the figures are for the RocksDB you named"
                          : ": the figures are for the RocksDB the files prove");
}

std::string CompressionManagerNote(const PatternChoice& c) {
  std::vector<std::string> parts;
  for (const std::string& m : c.compression_managers) {
    parts.push_back(absl::StrCat(
        "compression_manager=", m, " is recorded: ",
        m.find("rockpool") != std::string::npos
            ? "the DB's SST blocks already run rockpool's native face; stock here is the "
              "built-in manager's pattern (the same RocksDB without rockpool)"
            : "sst_replay does not know that manager's call pattern; stock here is the built-in "
              "manager's, so the SST figures may not hold for this DB (blob files and the "
              "compressed secondary cache use the built-in manager whatever it says)"));
  }
  return absl::StrJoin(parts, "; ");
}

std::vector<std::string> ParallelCompressionNotes(const StockPattern& pattern,
                                                  const std::vector<OptionsFileInfo>& options) {
  std::vector<std::string> notes;
  for (const OptionsFileInfo& o : options) {
    for (const sst::ParallelCompression& p : o.parallel_compression) {
      std::string note = absl::StrCat(o.path, ", column family \"", p.column_family, "\": ");
      if (p.threads > 1) {
        absl::StrAppend(&note, "compression_opts.parallel_threads=", p.threads, ": ");
        if (pattern.parallel == ParallelModel::kNotReplayed) {
          absl::StrAppend(&note, "RocksDB ", pattern.versions,
                          " then creates more zstd contexts per SST file, which blocks mode does "
                          "not replay, so stock's zstd SST figures for the family are a lower "
                          "bound");
        } else {
          absl::StrAppend(
              &note, "stock replays ", ZstdDataContextsPerSstFile(pattern, p.threads, false),
              " zstd data contexts per SST file",
              pattern.parallel == ParallelModel::kDataAreaPlusWorkers
                  ? " (the data working area and one per worker thread; 1 for a file with a "
                    "dictionary)"
                  : " (compression_ctxs[parallel_threads]; index blocks use the first)");
        }
      }
      if (p.bottommost_threads > 0 && p.bottommost_threads != p.threads) {
        absl::StrAppend(
            &note, p.threads > 1 ? "; " : "",
            "enabled bottommost_compression_opts set parallel_threads=", p.bottommost_threads,
            " for bottommost-level files, which SST files do not tell apart: the "
            "family's files are all replayed with parallel_threads=",
            p.threads);
      }
      notes.push_back(std::move(note));
    }
  }
  return notes;
}

}  // namespace rockpool::replay
