#include "tools/sst_replay/job.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <type_traits>
#include <variant>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "rocksdb_plugin/own_file.h"
#include "tools/sst/byte_source.h"

namespace rockpool::replay {
namespace {

absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Splits "key rest of line".
std::pair<std::string_view, std::string_view> KeyValue(std::string_view line) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) return {line, {}};
  return {line.substr(0, space), line.substr(space + 1)};
}

std::vector<std::string_view> Words(std::string_view s, size_t max_words) {
  std::vector<std::string_view> out;
  while (!s.empty() && out.size() + 1 < max_words) {
    const size_t space = s.find(' ');
    if (space == std::string_view::npos) break;
    out.push_back(s.substr(0, space));
    s.remove_prefix(space + 1);
  }
  out.push_back(s);
  return out;
}

// A decimal integer that fits T: a value out of T's range (a negative one
// for an unsigned field, say) is malformed, not wrapped, so what the writer
// prints back parses again to the same value.
template <typename T>
bool ParseInt(std::string_view s, T* out) {
  static_assert(std::is_integral_v<T>);
  using Wide = std::conditional_t<std::is_unsigned_v<T>, uint64_t, int64_t>;
  Wide v = 0;
  if (!absl::SimpleAtoi(A(s), &v)) return false;  // unsigned: rejects a '-'
  const T narrow = static_cast<T>(v);
  if (static_cast<Wide>(narrow) != v) return false;  // out of T's range
  *out = narrow;
  return true;
}

// CodecText's words: type, level, window_bits, strategy, max_dict_bytes,
// parallel_threads.
constexpr size_t kCodecWords = 6;

std::string CodecText(const CodecSettings& c) {
  return absl::StrCat(c.type, " ", c.level, " ", c.window_bits, " ", c.strategy, " ",
                      c.max_dict_bytes, " ", c.parallel_threads);
}

bool ParseCodec(const std::vector<std::string_view>& w, size_t at, CodecSettings* c) {
  return w.size() >= at + kCodecWords && ParseInt(w[at], &c->type) &&
         ParseInt(w[at + 1], &c->level) && ParseInt(w[at + 2], &c->window_bits) &&
         ParseInt(w[at + 3], &c->strategy) && ParseInt(w[at + 4], &c->max_dict_bytes) &&
         ParseInt(w[at + 5], &c->parallel_threads) && c->parallel_threads > 0;
}

absl::Status Bad(std::string_view what, std::string_view line) {
  return absl::InternalError(absl::StrCat("malformed ", A(what), " line: ", A(line)));
}

}  // namespace

const char* StrategyName(Strategy s) { return s == Strategy::kStock ? "stock" : "pooled"; }

namespace {

// The Job's one-value lines, in one table so that writer and parser list the
// same fields (strategy, files and groups have lines of their own).
struct JobField {
  const char* key;
  std::variant<std::string Job::*, uint64_t Job::*, bool Job::*> member;
};
static_assert(std::is_same_v<RockpoolOptions::MaxIdlePerKey, uint64_t>);
const JobField kJobFields[] = {
    {"mode", &Job::mode},
    {"max_idle_per_key", &Job::max_idle_per_key},
    {"verify_checksums", &Job::verify_checksums},
    {"pattern", &Job::pattern},
    {"block_size", &Job::block_size},
    {"total_blocks", &Job::total_blocks},
    {"total_stored_bytes", &Job::total_stored_bytes},
    {"output", &Job::output},
    {"allocator", &Job::allocator},
    {"allocator_preload", &Job::allocator_preload},
    {"source_db", &Job::source_db},
};

std::string FieldText(const Job& job, const JobField& field) {
  return std::visit(
      [&](auto member) {
        if constexpr (std::is_same_v<decltype(member), bool Job::*>) {
          return std::string(job.*member ? "1" : "0");
        } else {
          return absl::StrCat(job.*member);
        }
      },
      field.member);
}

bool ReadField(std::string_view value, const JobField& field, Job* job) {
  return std::visit(
      [&](auto member) {
        using Member = decltype(member);
        if constexpr (std::is_same_v<Member, bool Job::*>) {
          job->*member = value == "1";
          return true;
        } else if constexpr (std::is_same_v<Member, uint64_t Job::*>) {
          return ParseInt(value, &(job->*member));
        } else {
          job->*member = std::string(value);
          return true;
        }
      },
      field.member);
}

// "<codec words> [<use_dict>] <path>": an SST ("file", with use_dict) or a
// blob file ("blob") of blocks mode.
bool ParseBlocksFile(std::string_view value, bool sst, Job* job) {
  const size_t words = kCodecWords + (sst ? 2 : 1);
  std::vector<std::string_view> w = Words(value, words);
  BlocksFile f;
  if (w.size() != words || !ParseCodec(w, 0, &f.codec)) return false;
  f.use_dictionary = sst && w[kCodecWords] == "1";
  f.path = std::string(w.back());
  (sst ? job->files : job->blobs).push_back(std::move(f));
  return true;
}

// "<name> <codec words> <format_version> <checksum> <block_size>"
bool ParseGroup(std::string_view value, Job* job) {
  constexpr size_t kAt = kCodecWords + 1;
  std::vector<std::string_view> w = Words(value, kAt + 3);
  CompactionGroup g;
  if (w.size() != kAt + 3 || !ParseCodec(w, 1, &g.codec) || !ParseInt(w[kAt], &g.format_version) ||
      !ParseInt(w[kAt + 1], &g.checksum) || !ParseInt(w[kAt + 2], &g.block_size)) {
    return false;
  }
  g.name = std::string(w[0]);
  job->groups.push_back(std::move(g));
  return true;
}

// "<group name> <path>": a file of a group listed before.
bool ParseIngest(std::string_view value, Job* job) {
  std::vector<std::string_view> w = Words(value, 2);
  if (w.size() != 2) return false;
  bool found = false;
  for (CompactionGroup& g : job->groups) {
    if (g.name == w[0]) {
      g.files.emplace_back(w[1]);
      found = true;
    }
  }
  return found;
}

}  // namespace

std::string SerializeJob(const Job& job) {
  std::string out = absl::StrCat("strategy ", StrategyName(job.strategy), "\n");
  for (const JobField& field : kJobFields) {
    absl::StrAppend(&out, field.key, " ", FieldText(job, field), "\n");
  }
  for (const BlocksFile& f : job.files) {
    absl::StrAppend(&out, "file ", CodecText(f.codec), " ", f.use_dictionary ? 1 : 0, " ", f.path,
                    "\n");
  }
  for (const BlocksFile& f : job.blobs) {
    absl::StrAppend(&out, "blob ", CodecText(f.codec), " ", f.path, "\n");
  }
  for (const CompactionGroup& g : job.groups) {
    absl::StrAppend(&out, "group ", g.name, " ", CodecText(g.codec), " ", g.format_version, " ",
                    g.checksum, " ", g.block_size, "\n");
    for (const std::string& f : g.files) absl::StrAppend(&out, "ingest ", g.name, " ", f, "\n");
  }
  return out;
}

absl::StatusOr<Job> ParseJob(std::string_view text) {
  Job job;
  for (absl::string_view raw : absl::StrSplit(A(text), '\n', absl::SkipEmpty())) {
    const std::string_view line(raw.data(), raw.size());
    const auto [key, value] = KeyValue(line);
    const auto field = std::find_if(std::begin(kJobFields), std::end(kJobFields),
                                    [key = key](const JobField& f) { return key == f.key; });
    bool ok = true;
    if (field != std::end(kJobFields)) {
      ok = ReadField(value, *field, &job);
    } else if (key == "strategy") {
      job.strategy = value == "pooled" ? Strategy::kPooled : Strategy::kStock;
    } else if (key == "file" || key == "blob") {
      ok = ParseBlocksFile(value, key == "file", &job);
    } else if (key == "group") {
      ok = ParseGroup(value, &job);
    } else if (key == "ingest") {
      ok = ParseIngest(value, &job);
    }
    if (!ok) return Bad("job", line);
  }
  if (job.mode != "blocks" && job.mode != "compaction") {
    return absl::InternalError(absl::StrCat("job has no valid mode: \"", job.mode, "\""));
  }
  return job;
}

std::string SerializeResult(const RunResult& r) {
  std::string out;
  for (const auto& [name, value] : r.metrics)
    absl::StrAppend(&out, "metric ", name, " ", value, "\n");
  for (const SeriesPoint& p : r.series) {
    char x[64];
    std::snprintf(x, sizeof(x), "%.9g", p.x);
    absl::StrAppend(&out, "point ", x, " ", p.process_bytes, " ", p.codec_bytes, "\n");
  }
  for (const auto& [group, path] : r.outputs)
    absl::StrAppend(&out, "output ", group, " ", path, "\n");
  for (const std::string& note : r.notes) absl::StrAppend(&out, "note ", note, "\n");
  for (const auto& [key, value] : r.facts) absl::StrAppend(&out, "fact ", key, " ", value, "\n");
  if (r.error_code != 0) absl::StrAppend(&out, "error ", r.error_code, " ", r.error, "\n");
  return out;
}

absl::StatusOr<RunResult> ParseResult(std::string_view text) {
  RunResult r;
  for (absl::string_view raw : absl::StrSplit(A(text), '\n', absl::SkipEmpty())) {
    const std::string_view line(raw.data(), raw.size());
    auto [key, value] = KeyValue(line);
    bool ok = true;
    if (key == "metric") {
      std::vector<std::string_view> w = Words(value, 2);
      int64_t v = 0;
      ok = w.size() == 2 && ParseInt(w[1], &v);
      if (ok) r.metrics[std::string(w[0])] = v;
    } else if (key == "point") {
      std::vector<std::string_view> w = Words(value, 3);
      SeriesPoint p;
      ok = w.size() == 3 && absl::SimpleAtod(A(w[0]), &p.x) && ParseInt(w[1], &p.process_bytes) &&
           ParseInt(w[2], &p.codec_bytes);
      if (ok) r.series.push_back(p);
    } else if (key == "output") {
      std::vector<std::string_view> w = Words(value, 2);
      ok = w.size() == 2;
      if (ok) r.outputs.emplace_back(std::string(w[0]), std::string(w[1]));
    } else if (key == "note") {
      r.notes.emplace_back(value);
    } else if (key == "fact") {
      std::vector<std::string_view> w = Words(value, 2);
      ok = !w[0].empty();
      if (ok) r.facts[std::string(w[0])] = w.size() == 2 ? std::string(w[1]) : "";
    } else if (key == "error") {
      std::vector<std::string_view> w = Words(value, 2);
      ok = w.size() == 2 && ParseInt(w[0], &r.error_code);
      if (ok) r.error = std::string(w[1]);
    }
    if (!ok) return Bad("result", line);
  }
  return r;
}

absl::Status WriteTextFile(const std::string& path, std::string_view text) {
  return ReplaceOwnFile(path, absl::string_view(text.data(), text.size()));
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  return sst::ReadWholeFile(path, kMaxTextFileBytes);
}

}  // namespace rockpool::replay
