#include "tools/sst_replay/command_line.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <utility>

#include "absl/flags/internal/usage.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "compression/compression_type.h"
#include "tools/sst_replay/stock_patterns.h"

namespace rockpool::replay {
std::string OneLine(absl::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

int UsageError(absl::string_view message) {
  std::fprintf(stderr, "sst_replay: %s\nTry --help.\n", OneLine(message).c_str());
  return 2;
}

namespace {

absl::Status ReadMode(const std::string& mode, ReplaySettings* r) {
  if (mode == "blocks") {
    r->compaction = false;
  } else if (mode == "compaction") {
    r->blocks = false;
  } else if (mode != "both") {
    return absl::InvalidArgumentError(
        absl::StrCat("--mode=", mode, ": want blocks, compaction or both"));
  }
  return absl::OkStatus();
}

absl::Status ReadCodec(const std::string& codec, ReplaySettings* r) {
  if (codec.empty()) return absl::OkStatus();
  for (uint8_t type : {compression_type::kZSTD, compression_type::kZlib, compression_type::kLZ4,
                       compression_type::kLZ4HC}) {
    if (codec == CompressionTypeName(type)) {
      r->codec = type;
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--codec=", codec, ": want zstd, zlib, lz4 or lz4hc"));
}

// The numeric flags' ranges.
absl::Status CheckRanges(const FlagValues& f) {
  if (f.block_size > (uint64_t{64} << 20)) {
    return absl::InvalidArgumentError("--block_size: at most 64 MiB");
  }
  if (f.block_size != 0 && f.block_size < 64) {
    return absl::InvalidArgumentError("--block_size: at least 64 bytes (or 0)");
  }
  if (f.repeat < 1 || f.repeat > 1000) return absl::InvalidArgumentError("--repeat: want 1..1000");
  if (f.max_idle_per_key < 1 || f.max_idle_per_key > RockpoolOptions::kMaxIdlePerKeyLimit) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_idle_per_key: want 1..", RockpoolOptions::kMaxIdlePerKeyLimit));
  }
  if (f.workload_mb < 1 || f.workload_mb > 65536) {
    return absl::InvalidArgumentError("--workload_mb: want 1..65536");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Settings> SettingsFromFlags(const FlagValues& f) {
  Settings s;
  static_cast<SessionFlags&>(s) = f;
  ReplaySettings& r = s.replay;
  if (absl::Status st = ReadMode(f.mode, &r); !st.ok()) return st;
  if (absl::Status st = ReadCodec(f.codec, &r); !st.ok()) return st;
  if (!f.level.empty()) {
    int v = 0;
    if (!absl::SimpleAtoi(f.level, &v) || v < -131072 || v > 32767) {
      return absl::InvalidArgumentError(absl::StrCat("--level=", f.level, ": want an integer"));
    }
    r.level = v;
  }
  if (absl::Status st = CheckRanges(f); !st.ok()) return st;
  if (f.rocksdb_version != "auto") {
    if (absl::StatusOr<const StockPattern*> p = PatternForVersion(f.rocksdb_version); !p.ok()) {
      return p.status();
    }
  }
  r.block_size = f.block_size;
  r.repeat = f.repeat;
  r.max_idle_per_key = f.max_idle_per_key;
  r.verify_checksums = f.verify_checksums;
  return s;
}

int ParseFlags(int argc, char** argv, std::vector<std::string>* positional) {
  bool only_positional = false;
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (only_positional || arg.size() < 2 || arg[0] != '-') {
      positional->emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    const absl::string_view body = arg.substr(arg[1] == '-' ? 2 : 1);
    absl::string_view name = body;
    std::optional<absl::string_view> value;
    if (const size_t eq = body.find('='); eq != absl::string_view::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
    }
    // Abseil's usage flags (--help, --helpfull, --helpshort, --help=substring,
    // --version, ...) print exactly as in any Abseil program; all exit 0.
    const absl::string_view usage_name = name == "h" || name == "?" ? "help" : name;
    if (absl::flags_internal::DeduceUsageFlags(usage_name, value.value_or(""))) {
      absl::flags_internal::HandleUsageFlags(std::cout, absl::ProgramUsageMessage());
      std::cout.flush();
      return 0;
    }
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    std::string text;
    if (flag == nullptr && absl::StartsWith(name, "no") && !value.has_value()) {
      flag = absl::FindCommandLineFlag(name.substr(2));
      if (flag != nullptr && !flag->IsOfType<bool>()) flag = nullptr;
      text = "false";
    } else if (flag != nullptr && value.has_value()) {
      text = std::string(*value);
    } else if (flag != nullptr && flag->IsOfType<bool>()) {
      text = "true";
    } else if (flag != nullptr) {
      if (i + 1 >= argc) return UsageError(absl::StrCat("flag --", name, " needs a value"));
      text = argv[++i];
    }
    if (flag == nullptr) return UsageError(absl::StrCat("unknown flag ", arg));
    std::string error;
    if (!flag->ParseFrom(text, &error)) {
      return UsageError(absl::StrCat("--", name, ": ", error));
    }
  }
  return -1;
}

}  // namespace rockpool::replay
