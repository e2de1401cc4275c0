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
#include "tools/status/status_macros.h"

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

absl::StatusOr<Settings> SettingsFromFlags(const FlagValues& f) {
  Settings s = f;
  ReplaySettings& r = s.replay;
  if (f.mode != "blocks" && f.mode != "compaction" && f.mode != "both") {
    return absl::InvalidArgumentError(
        absl::StrCat("--mode=", f.mode, ": want blocks, compaction or both"));
  }
  r.blocks = f.mode != "compaction";
  r.compaction = f.mode != "blocks";
  for (uint8_t type : {compression_type::kZSTD, compression_type::kZlib, compression_type::kLZ4,
                       compression_type::kLZ4HC}) {
    if (f.codec == CompressionTypeName(type)) r.codec = type;
  }
  if (!f.codec.empty() && !r.codec.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--codec=", f.codec, ": want zstd, zlib, lz4 or lz4hc"));
  }
  if (!f.level.empty()) {
    int v = 0;
    if (!absl::SimpleAtoi(f.level, &v) || v < -131072 || v > 32767) {
      return absl::InvalidArgumentError(absl::StrCat("--level=", f.level, ": want an integer"));
    }
    r.level = v;
  }
  if (r.block_size > (uint64_t{64} << 20)) {
    return absl::InvalidArgumentError("--block_size: at most 64 MiB");
  }
  if (r.block_size != 0 && r.block_size < 64) {
    return absl::InvalidArgumentError("--block_size: at least 64 bytes (or 0)");
  }
  auto from_one_to = [](const char* flag, int64_t value, int64_t max) {
    return value >= 1 && value <= max
               ? absl::OkStatus()
               : absl::InvalidArgumentError(absl::StrCat(flag, ": want 1..", max));
  };
  ROCKPOOL_RETURN_IF_ERROR(from_one_to("--repeat", r.repeat, 1000));
  ROCKPOOL_RETURN_IF_ERROR(from_one_to("--max_idle_per_key",
                                       static_cast<int64_t>(r.max_idle_per_key),
                                       RockpoolOptions::kMaxIdlePerKeyLimit));
  ROCKPOOL_RETURN_IF_ERROR(
      from_one_to("--workload_mb", static_cast<int64_t>(f.workload_mb), 65536));
  if (f.rocksdb_version != "auto") {
    ROCKPOOL_RETURN_IF_ERROR(PatternForVersion(f.rocksdb_version).status());
  }
  return s;
}

int ParseFlags(int argc, char** argv, std::vector<std::string>* positional) {
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--") {  // the rest are inputs
      positional->insert(positional->end(), argv + i + 1, argv + argc);
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      positional->emplace_back(arg);
      continue;
    }
    absl::string_view name = arg.substr(arg[1] == '-' ? 2 : 1);
    std::optional<absl::string_view> value;
    if (const size_t eq = name.find('='); eq != absl::string_view::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
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
    if (flag == nullptr && !value.has_value() && absl::StartsWith(name, "no")) {  // --nobool
      flag = absl::FindCommandLineFlag(name.substr(2));
      if (flag != nullptr && !flag->IsOfType<bool>()) flag = nullptr;
      value = "false";
    }
    if (flag == nullptr) return UsageError(absl::StrCat("unknown flag ", arg));
    if (!value.has_value() && flag->IsOfType<bool>()) value = "true";
    if (!value.has_value()) {
      if (i + 1 >= argc) return UsageError(absl::StrCat("flag --", name, " needs a value"));
      value = argv[++i];
    }
    std::string error;
    if (!flag->ParseFrom(*value, &error)) return UsageError(absl::StrCat("--", name, ": ", error));
  }
  return -1;
}

}  // namespace rockpool::replay
