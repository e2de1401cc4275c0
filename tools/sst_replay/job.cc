#include "tools/sst_replay/job.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

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

template <typename T>
bool ParseInt(std::string_view s, T* out) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(A(s), &v)) return false;
  *out = static_cast<T>(v);
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

std::string SerializeJob(const Job& job) {
  std::string out;
  absl::StrAppend(&out, "mode ", job.mode, "\n");
  absl::StrAppend(&out, "strategy ", StrategyName(job.strategy), "\n");
  absl::StrAppend(&out, "max_idle_per_key ", job.max_idle_per_key, "\n");
  absl::StrAppend(&out, "verify_checksums ", job.verify_checksums ? 1 : 0, "\n");
  absl::StrAppend(&out, "pattern ", job.pattern, "\n");
  absl::StrAppend(&out, "block_size ", job.block_size, "\n");
  absl::StrAppend(&out, "total_blocks ", job.total_blocks, "\n");
  absl::StrAppend(&out, "total_stored_bytes ", job.total_stored_bytes, "\n");
  absl::StrAppend(&out, "output ", job.output, "\n");
  absl::StrAppend(&out, "allocator ", job.allocator, "\n");
  if (!job.allocator_preload.empty()) {
    absl::StrAppend(&out, "allocator_preload ", job.allocator_preload, "\n");
  }
  for (const BlocksFile& f : job.files) {
    // file <codec words> <use_dict> <path>
    absl::StrAppend(&out, "file ", CodecText(f.codec), " ", f.use_dictionary ? 1 : 0, " ", f.path,
                    "\n");
  }
  for (const BlocksFile& f : job.blobs) {
    absl::StrAppend(&out, "blob ", CodecText(f.codec), " ", f.path, "\n");
  }
  if (!job.source_db.empty()) absl::StrAppend(&out, "source_db ", job.source_db, "\n");
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
    auto [key, value] = KeyValue(line);
    bool ok = true;
    if (key == "mode") {
      job.mode = std::string(value);
    } else if (key == "strategy") {
      job.strategy = value == "pooled" ? Strategy::kPooled : Strategy::kStock;
    } else if (key == "max_idle_per_key") {
      ok = ParseInt(value, &job.max_idle_per_key);
    } else if (key == "verify_checksums") {
      job.verify_checksums = value == "1";
    } else if (key == "pattern") {
      job.pattern = std::string(value);
    } else if (key == "block_size") {
      ok = ParseInt(value, &job.block_size);
    } else if (key == "total_blocks") {
      ok = ParseInt(value, &job.total_blocks);
    } else if (key == "total_stored_bytes") {
      ok = ParseInt(value, &job.total_stored_bytes);
    } else if (key == "output") {
      job.output = std::string(value);
    } else if (key == "allocator") {
      job.allocator = std::string(value);
    } else if (key == "allocator_preload") {
      job.allocator_preload = std::string(value);
    } else if (key == "file") {
      std::vector<std::string_view> w = Words(value, kCodecWords + 2);
      BlocksFile f;
      ok = w.size() == kCodecWords + 2 && ParseCodec(w, 0, &f.codec);
      if (ok) {
        f.use_dictionary = w[kCodecWords] == "1";
        f.path = std::string(w[kCodecWords + 1]);
        job.files.push_back(std::move(f));
      }
    } else if (key == "blob") {
      std::vector<std::string_view> w = Words(value, kCodecWords + 1);
      BlocksFile f;
      ok = w.size() == kCodecWords + 1 && ParseCodec(w, 0, &f.codec);
      if (ok) {
        f.path = std::string(w[kCodecWords]);
        job.blobs.push_back(std::move(f));
      }
    } else if (key == "source_db") {
      job.source_db = std::string(value);
    } else if (key == "group") {
      // group <name> <codec words> <format_version> <checksum> <block_size>
      constexpr size_t kAt = kCodecWords + 1;
      std::vector<std::string_view> w = Words(value, kAt + 3);
      CompactionGroup g;
      ok = w.size() == kAt + 3 && ParseCodec(w, 1, &g.codec) &&
           ParseInt(w[kAt], &g.format_version) && ParseInt(w[kAt + 1], &g.checksum) &&
           ParseInt(w[kAt + 2], &g.block_size);
      if (ok) {
        g.name = std::string(w[0]);
        job.groups.push_back(std::move(g));
      }
    } else if (key == "ingest") {
      std::vector<std::string_view> w = Words(value, 2);
      ok = w.size() == 2;
      bool found = false;
      for (CompactionGroup& g : job.groups) {
        if (ok && g.name == w[0]) {
          g.files.emplace_back(w[1]);
          found = true;
        }
      }
      ok = ok && found;
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
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InternalError(absl::StrCat("cannot read ", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace rockpool::replay
