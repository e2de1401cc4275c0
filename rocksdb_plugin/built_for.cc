#include "rocksdb_plugin/built_for.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace rockpool {
namespace {

constexpr absl::string_view kVersion = "version=";
constexpr absl::string_view kSoname = " soname=";
constexpr absl::string_view kBuildDate = " build_date=";

// The bytes from `at` up to the next NUL (or the end).
absl::string_view UpToNul(absl::string_view bytes, size_t at) {
  const size_t end = bytes.find('\0', at);
  return bytes.substr(at, end == absl::string_view::npos ? absl::string_view::npos : end - at);
}

}  // namespace

std::string RocksdbBuild::ToString() const {
  return absl::StrCat("RocksDB ", version, " (", soname, ", built ",
                      build_date.empty() ? "<unknown>" : build_date, ")");
}

std::string FormatBuiltFor(const RocksdbBuild& build) {
  return absl::StrCat(kVersion, build.version, kSoname, build.soname, kBuildDate, build.build_date);
}

std::optional<RocksdbBuild> ParseBuiltFor(absl::string_view fields) {
  if (!absl::ConsumePrefix(&fields, kVersion)) return std::nullopt;
  const size_t soname = fields.find(kSoname);
  const size_t date = fields.find(kBuildDate);
  if (soname == absl::string_view::npos || date == absl::string_view::npos || date < soname) {
    return std::nullopt;
  }
  RocksdbBuild out;
  out.version = std::string(fields.substr(0, soname));
  out.soname = std::string(fields.substr(soname + kSoname.size(), date - soname - kSoname.size()));
  out.build_date = std::string(fields.substr(date + kBuildDate.size()));
  if (out.version.empty() || !absl::StartsWith(out.soname, "librocksdb.so.")) return std::nullopt;
  return out;
}

std::optional<RocksdbBuild> FindBuiltFor(absl::string_view file_bytes, absl::string_view prefix) {
  if (prefix.empty()) return std::nullopt;
  for (size_t at = file_bytes.find(prefix); at != absl::string_view::npos;
       at = file_bytes.find(prefix, at + 1)) {
    if (auto build = ParseBuiltFor(UpToNul(file_bytes, at + prefix.size()))) {
      return build;
    }
  }
  return std::nullopt;
}

std::optional<std::string> FindBuildDate(absl::string_view file_bytes) {
  const size_t at = file_bytes.find(kBuildDateProperty);
  if (at == absl::string_view::npos) return std::nullopt;
  return std::string(UpToNul(file_bytes, at + kBuildDateProperty.size()));
}

}  // namespace rockpool
