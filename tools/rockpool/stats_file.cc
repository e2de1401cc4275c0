#include "tools/rockpool/stats_file.h"

#include <map>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "tools/json/json_value.h"
#include "tools/sst/byte_source.h"

namespace rockpool::cli {
namespace {

using json::Value;

constexpr absl::string_view kPrefix = "rockpool report: ";

// key=value fields; in the since_last:/total: segments the key is
// "since_last.leases", "total.leases". Quoted values ("...") keep their
// spaces and lose their quotes.
absl::StatusOr<std::map<std::string, std::string>> Fields(absl::string_view text) {
  std::map<std::string, std::string> fields;
  std::string section;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != '=') ++end;
    const absl::string_view word = text.substr(i, end - i);
    if (end == text.size() || text[end] == ' ') {
      if (word == "|") {
        section.clear();
      } else if (absl::EndsWith(word, ":")) {
        section = std::string(word.substr(0, word.size() - 1));
      } else {
        return absl::InvalidArgumentError(absl::StrCat("unexpected word \"", word, "\""));
      }
      i = end;
      continue;
    }
    // word=value
    size_t v = end + 1;
    std::string value;
    if (v < text.size() && text[v] == '"') {
      const size_t close = text.find('"', v + 1);
      if (close == absl::string_view::npos) {
        return absl::InvalidArgumentError(absl::StrCat("unterminated quote after ", word, "="));
      }
      value = std::string(text.substr(v + 1, close - v - 1));
      i = close + 1;
    } else {
      size_t e = text.find(' ', v);
      if (e == absl::string_view::npos) e = text.size();
      value = std::string(text.substr(v, e - v));
      i = e;
    }
    const std::string key = section.empty() ? std::string(word) : absl::StrCat(section, ".", word);
    if (!fields.emplace(key, std::move(value)).second) {
      return absl::InvalidArgumentError(absl::StrCat("field ", key, " given twice"));
    }
  }
  return fields;
}

class Reader {
 public:
  explicit Reader(const std::map<std::string, std::string>& f) : f_(f) {}

  void Text(const std::string& key, std::string* out, bool required = true) {
    auto it = f_.find(key);
    if (it == f_.end()) {
      if (required) Missing(key);
      return;
    }
    *out = it->second;
  }
  void Number(const std::string& key, uint64_t* out, bool required = true) {
    auto it = f_.find(key);
    if (it == f_.end()) {
      if (required) Missing(key);
      return;
    }
    if (!absl::SimpleAtoi(it->second, out)) {
      Error(absl::StrCat(key, "=", it->second, " is not a number"));
    }
  }
  void Pool(const std::string& key, PoolFigures* out, bool required = true) {
    auto it = f_.find(key);
    if (it == f_.end()) {
      if (required) Missing(key);
      return;
    }
    std::vector<absl::string_view> parts = absl::StrSplit(it->second, '/');
    bool ok = parts.size() == kPerPoolFigures;
    std::string names;
    for (size_t i = 0; i < kPerPoolFigures; ++i) {
      const PoolFigureField& f = kPoolFigureFields[i];
      absl::StrAppend(&names, i == 0 ? "" : "/", f.name);
      ok = ok && absl::SimpleAtoi(parts[i], &(out->*f.member));
    }
    if (!ok) Error(absl::StrCat(key, "=", it->second, " is not ", names));
  }
  absl::Status status() const { return status_; }

 private:
  void Missing(const std::string& key) { Error(absl::StrCat("no ", key, "= field")); }
  void Error(std::string message) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(std::move(message));
  }

  const std::map<std::string, std::string>& f_;
  absl::Status status_;
};

std::string Percent(uint64_t part, uint64_t whole) {
  if (whole == 0) return "-";
  return absl::StrFormat("%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

// "<=" before an estimate that is an upper bound.
std::string UpTo(const ProcessStats& s, const std::string& figure) {
  return s.stock_estimate_is_upper_bound() && figure != "-" ? "<=" + figure : figure;
}

std::string State(const std::string& state) { return state.empty() ? "-" : state; }

// The first `count` figures, by name, onto `out`.
void AddFigures(const PoolFigures& p, size_t count, Value::Members* out) {
  for (size_t i = 0; i < count; ++i) {
    out->emplace_back(kPoolFigureFields[i].name, Value::Integer(p.*kPoolFigureFields[i].member));
  }
}

Value PoolJson(const PoolFigures& p) {
  Value::Members figures;
  AddFigures(p, kPerPoolFigures, &figures);
  return Value::MakeObject(std::move(figures));
}

Value CodecJson(const std::string& state, const std::string& forwarded) {
  return Value::MakeObject(
      {{"state", Value::String(state)}, {"forwarded", Value::String(forwarded)}});
}

Value ProcessJson(const ProcessStats& s, bool total) {
  Value::Members o;
  if (!total) {
    o = {{"file", Value::String(s.file)},
         {"pid", Value::Integer(s.pid)},
         {"event", Value::String(s.event)},
         {"mode", Value::String(s.mode)}};
  }
  AddFigures(s.total, std::size(kPoolFigureFields), &o);
  o.emplace_back("saved_bytes", Value::Integer(s.saved_bytes()));
  o.emplace_back("stock_est_upper_bound", Value::Bool(s.stock_estimate_is_upper_bound()));
  o.emplace_back("idle", Value::Integer(s.idle));
  o.emplace_back("idle_bytes", Value::Integer(s.idle_bytes));
  o.emplace_back("peak_retained_bytes", Value::Integer(s.peak_retained_bytes));
  o.emplace_back("in_use", Value::Integer(s.in_use));
  o.emplace_back("discarded", Value::Integer(s.discarded));
  Value::Members pools;
#define ROCKPOOL_JSON_POOL(name, report_key, ...) pools.emplace_back(report_key, PoolJson(s.name));
  ROCKPOOL_POOL_TABLE(ROCKPOOL_JSON_POOL)
#undef ROCKPOOL_JSON_POOL
  o.emplace_back("pools", Value::MakeObject(std::move(pools)));
  if (!total) {
    o.emplace_back("codecs", Value::MakeObject({{"zstd", CodecJson(s.zstd_state, s.zstd_forwarded)},
                                                {"zlib", CodecJson(s.zlib_state, s.zlib_forwarded)},
                                                {"lz4", CodecJson(s.lz4_state, s.lz4_forwarded)}}));
    o.emplace_back("refused", Value::String(s.refused));
  }
  return Value::MakeObject(std::move(o));
}

}  // namespace

absl::StatusOr<ProcessStats> ParseReportLine(absl::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (!absl::StartsWith(line, kPrefix)) {
    return absl::InvalidArgumentError("not a `rockpool report:` line");
  }
  absl::StatusOr<std::map<std::string, std::string>> fields = Fields(line.substr(kPrefix.size()));
  if (!fields.ok()) return fields.status();
  ProcessStats s;
  Reader r(*fields);
  r.Text("event", &s.event);
  r.Number("pid", &s.pid);
  r.Text("mode", &s.mode);
  for (const PoolFigureField& f : kPoolFigureFields) {
    r.Number(absl::StrCat("total.", f.name), &(s.total.*f.member));
  }
  r.Number("idle", &s.idle);
  r.Number("idle_bytes", &s.idle_bytes);
  r.Number("peak_retained_bytes", &s.peak_retained_bytes, /*required=*/false);
  r.Number("in_use", &s.in_use);
  r.Number("discarded", &s.discarded);
#define ROCKPOOL_READ_POOL(name, report_key, in_every_line) \
  r.Pool(report_key, &s.name, in_every_line);
  ROCKPOOL_POOL_TABLE(ROCKPOOL_READ_POOL)
#undef ROCKPOOL_READ_POOL
  r.Text("zstd", &s.zstd_state, /*required=*/false);
  r.Text("zlib", &s.zlib_state, /*required=*/false);
  r.Text("lz4", &s.lz4_state, /*required=*/false);
  r.Text("zstd_forwarded", &s.zstd_forwarded, /*required=*/false);
  r.Text("zlib_forwarded", &s.zlib_forwarded, /*required=*/false);
  r.Text("lz4_forwarded", &s.lz4_forwarded, /*required=*/false);
  r.Text("refused", &s.refused, /*required=*/false);
  if (!r.status().ok()) return r.status();
  if (s.total.leases != s.total.created + s.total.reused) {
    return absl::InvalidArgumentError(absl::StrCat("total: leases=", s.total.leases,
                                                   " is not created=", s.total.created,
                                                   " + reused=", s.total.reused));
  }
  return s;
}

absl::StatusOr<ProcessStats> ReadStatsFile(const std::string& path) {
  absl::StatusOr<std::string> text = sst::ReadWholeFile(path, kMaxStatsFileBytes);
  if (!text.ok()) return text.status();
  return ParseStatsText(path, *text);
}

absl::StatusOr<ProcessStats> ParseStatsText(const std::string& path, absl::string_view text) {
  absl::string_view last;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, kPrefix)) last = line;
  }
  if (last.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no `rockpool report:` line"));
  }
  absl::StatusOr<ProcessStats> stats = ParseReportLine(last);
  if (!stats.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": malformed report line: ", stats.status().message()));
  }
  stats->file = path;
  return stats;
}

ProcessStats Total(const std::vector<ProcessStats>& processes) {
  ProcessStats t;
  for (const ProcessStats& s : processes) {
    Add(&t.total, s.total);
    t.idle += s.idle;
    t.idle_bytes += s.idle_bytes;
    t.peak_retained_bytes += s.peak_retained_bytes;
    t.in_use += s.in_use;
    t.discarded += s.discarded;
#define ROCKPOOL_ADD_POOL(name, ...) Add(&t.name, s.name);
    ROCKPOOL_POOL_TABLE(ROCKPOOL_ADD_POOL)
#undef ROCKPOOL_ADD_POOL
  }
  return t;
}

std::string FormatTable(const std::vector<ProcessStats>& processes) {
  const std::vector<std::string> head = {"process",     "event",  "mode",      "leases",
                                         "created",     "reused", "lib_bytes", "stock_est_bytes",
                                         "saved_bytes", "saved",  "idle",      "idle_bytes",
                                         "zstd",        "zlib",   "lz4"};
  std::vector<std::vector<std::string>> rows = {head};
  auto row = [](const std::string& name, const ProcessStats& s, const std::string& event,
                const std::string& mode, const std::string& zstd, const std::string& zlib,
                const std::string& lz4) {
    return std::vector<std::string>{name,
                                    event,
                                    mode,
                                    absl::StrCat(s.total.leases),
                                    absl::StrCat(s.total.created),
                                    absl::StrCat(s.total.reused),
                                    absl::StrCat(s.total.lib_bytes),
                                    UpTo(s, absl::StrCat(s.total.stock_est_bytes)),
                                    UpTo(s, absl::StrCat(s.saved_bytes())),
                                    UpTo(s, Percent(s.saved_bytes(), s.total.stock_est_bytes)),
                                    absl::StrCat(s.idle),
                                    absl::StrCat(s.idle_bytes),
                                    zstd,
                                    zlib,
                                    lz4};
  };
  for (const ProcessStats& s : processes) {
    rows.push_back(row(absl::StrCat("pid ", s.pid), s, s.event, s.mode, State(s.zstd_state),
                       State(s.zlib_state), State(s.lz4_state)));
  }
  rows.push_back(row(absl::StrCat("total (", processes.size(),
                                  processes.size() == 1 ? " process)" : " processes)"),
                     Total(processes), "-", "-", "-", "-", "-"));
  std::vector<size_t> width(head.size(), 0);
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      // Names and states left-aligned, numbers right-aligned.
      const bool left = c < 3 || c >= 12;
      const std::string pad(width[c] - r[c].size(), ' ');
      absl::StrAppend(&line, c == 0 ? "" : "  ", left ? r[c] + pad : pad + r[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    absl::StrAppend(&out, line, "\n");
  }
  if (Total(processes).stock_estimate_is_upper_bound()) {
    absl::StrAppend(&out,
                    "<=: upper bound: the stock estimate counts zstd leases, but RocksDB keeps "
                    "one zstd decompression context per core and zstd contexts regrow; "
                    "ROCKPOOL_OPTIONS=measure_stock=true measures stock exactly\n");
  }
  for (const ProcessStats& s : processes) {
    absl::StrAppend(&out, "pid ", s.pid, ": ", s.file, "\n");
    if (!s.refused.empty()) {
      absl::StrAppend(&out, "pid ", s.pid, ": not served: ", s.refused, "\n");
    }
    if (!s.zstd_forwarded.empty()) {
      absl::StrAppend(&out, "pid ", s.pid, ": zstd forwarded: ", s.zstd_forwarded, "\n");
    }
    if (!s.zlib_forwarded.empty()) {
      absl::StrAppend(&out, "pid ", s.pid, ": zlib forwarded: ", s.zlib_forwarded, "\n");
    }
    if (!s.lz4_forwarded.empty()) {
      absl::StrAppend(&out, "pid ", s.pid, ": lz4 forwarded: ", s.lz4_forwarded, "\n");
    }
  }
  return out;
}

std::string FormatJson(const std::vector<ProcessStats>& processes) {
  Value::Array list;
  for (const ProcessStats& p : processes) list.push_back(ProcessJson(p, false));
  return json::ToIndentedText(Value::MakeObject({{"processes", Value::MakeArray(std::move(list))},
                                                 {"total", ProcessJson(Total(processes), true)}})) +
         "\n";
}

}  // namespace rockpool::cli
