#include "tools/sst/options_file.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tools/sst/byte_source.h"

namespace rockpool::sst {
namespace {

namespace fs = std::filesystem;

// A number after "OPTIONS-", or -1 (OPTIONS-000007.dbtmp and others).
int64_t OptionsNumber(const std::string& name) {
  if (name.rfind("OPTIONS-", 0) != 0) return -1;
  int64_t n = 0;
  return absl::SimpleAtoi(name.substr(8), &n) ? n : -1;
}

// The value of `field` inside an OPTIONS struct value such as
// compression_opts={...;parallel_threads=4;...}; "" if absent.
absl::string_view StructField(absl::string_view value, absl::string_view field) {
  for (absl::string_view item : absl::StrSplit(value, absl::ByAnyChar("{};"))) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (absl::StripAsciiWhitespace(kv.first) == field) return absl::StripAsciiWhitespace(kv.second);
  }
  return "";
}

// parallel_threads=N of a struct value; 1 if absent or malformed, at most
// kMaxParallelThreads.
uint32_t ParallelThreadsIn(absl::string_view value) {
  uint32_t n = 0;
  if (!absl::SimpleAtoi(StructField(value, "parallel_threads"), &n) || n == 0) return 1;
  return std::min(n, kMaxParallelThreads);
}

bool StructFlag(absl::string_view value, absl::string_view field) {
  const absl::string_view v = StructField(value, field);
  return v == "true" || v == "1";
}

// The column family a "[CFOptions \"name\"]" section header names.
std::string ColumnFamilyOf(absl::string_view section) {
  absl::ConsumePrefix(&section, "[CFOptions");
  section = absl::StripAsciiWhitespace(section);
  absl::ConsumeSuffix(&section, "]");
  section = absl::StripAsciiWhitespace(section);
  absl::ConsumePrefix(&section, "\"");
  absl::ConsumeSuffix(&section, "\"");
  return std::string(section);
}

}  // namespace

OptionsFileInfo ParseOptionsText(const std::string& path, const std::string& text) {
  OptionsFileInfo info;
  info.path = path;
  std::string section;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      section = std::string(line);
      continue;
    }
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(line, absl::MaxSplits('=', 1));
    const absl::string_view key = absl::StripAsciiWhitespace(kv.first);
    const absl::string_view value = absl::StripAsciiWhitespace(kv.second);
    if (section == "[Version]" && key == "rocksdb_version") {
      info.rocksdb_version = std::string(value);
    } else if (absl::StartsWith(section, "[CFOptions") && key == "compression_manager" &&
               !value.empty() && value != "nullptr" && value != "{}") {
      const std::string manager(value);
      std::vector<std::string>& managers = info.compression_managers;
      if (std::find(managers.begin(), managers.end(), manager) == managers.end()) {
        managers.push_back(manager);
      }
    } else if (absl::StartsWith(section, "[CFOptions") &&
               (key == "compression_opts" || key == "bottommost_compression_opts")) {
      const bool bottommost = key == "bottommost_compression_opts";
      const uint32_t n = ParallelThreadsIn(value);
      if (n <= 1 || (bottommost && !StructFlag(value, "enabled"))) continue;
      const std::string cf = ColumnFamilyOf(section);
      auto it = std::find_if(info.parallel_compression.begin(), info.parallel_compression.end(),
                             [&](const ParallelCompression& e) { return e.column_family == cf; });
      if (it == info.parallel_compression.end()) {
        it = info.parallel_compression.insert(it, ParallelCompression{cf});
      }
      (bottommost ? it->bottommost_threads : it->threads) = n;
    }
  }
  return info;
}

std::string DirectoryOf(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

namespace {

// The newest (highest-numbered) OPTIONS-<n> file of `dir`; NotFound if none.
absl::StatusOr<OptionsFileInfo> ReadNewestOptionsFile(const std::string& dir) {
  std::error_code ec;
  std::string newest;
  int64_t best = -1;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const int64_t n = OptionsNumber(e.path().filename().string());
    if (n > best && e.is_regular_file(ec)) {
      best = n;
      newest = e.path().string();
    }
  }
  if (best < 0) return absl::NotFoundError(absl::StrCat("no OPTIONS file in ", dir));
  absl::StatusOr<std::string> text = ReadWholeFile(newest, kMaxOptionsFileBytes);
  if (!text.ok()) return text.status();
  return ParseOptionsText(newest, *text);
}

}  // namespace

const OptionsFileInfo* OptionsFiles::Beside(const std::string& path) {
  const std::string dir = DirectoryOf(path);
  auto [it, fresh] = by_dir_.try_emplace(dir);
  if (fresh) {
    absl::StatusOr<OptionsFileInfo> o = ReadNewestOptionsFile(dir);
    if (o.ok()) it->second = *std::move(o);
  }
  return it->second.has_value() ? &*it->second : nullptr;
}

uint32_t ParallelThreadsOf(const OptionsFileInfo& options, const std::string& column_family) {
  for (const ParallelCompression& p : options.parallel_compression) {
    if (p.column_family == column_family) return p.threads;
  }
  return 1;
}

}  // namespace rockpool::sst
