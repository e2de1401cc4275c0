#include "tools/rockpool/run_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "rocksdb_plugin/options.h"
#include "rocksdb_plugin/own_file.h"
#include "tools/process/preload_list.h"
#include "tools/rockpool/stats_location.h"

namespace rockpool::cli {
namespace {

int Fail(absl::string_view message, int code) {
  std::fprintf(stderr, "rockpool run: %.*s\n", static_cast<int>(message.size()), message.data());
  return code;
}

absl::string_view BaseName(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

bool IsRockpoolObject(absl::string_view entry) {
  const absl::string_view base = BaseName(entry);
  return base == kPreloadObject || base == kInterposeObject || base == kNativeObject;
}

}  // namespace

absl::StatusOr<RunRequest> ParseRunArguments(const std::vector<std::string>& args) {
  RunRequest r;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (!absl::StartsWith(a, "-")) break;  // PROGRAM
    if (absl::StartsWith(a, "--options=")) {
      r.options = a.substr(10);
    } else if (absl::StartsWith(a, "--stats=")) {
      r.stats = a.substr(8);
      if (r.stats->empty()) return absl::InvalidArgumentError("--stats needs a path");
    } else if (a == "--stats") {
      r.default_stats = true;
    } else if (a == "--verbose") {
      r.verbose = true;
    } else if (absl::StartsWith(a, "--object=")) {
      r.object = ObjectKindFromName(a.substr(9));
      if (!r.object.has_value()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--object=", a.substr(9), ": expected preload, interpose or native"));
      }
    } else if (a == "--options" || a == "--object") {
      return absl::InvalidArgumentError(absl::StrCat(a, " needs a value: ", a, "=..."));
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", a, " (see rockpool --help)"));
    }
  }
  r.argv.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (r.argv.empty()) {
    return absl::InvalidArgumentError(
        "no PROGRAM (usage: rockpool run [flags] -- PROGRAM [ARGS...])");
  }
  return r;
}

std::string PreloadWith(const std::string& existing, const std::string& object) {
  // Another rockpool object (from an outer `rockpool run`) is replaced.
  return process::PreloadFirst(object, existing, [](std::string_view entry) {
    return IsRockpoolObject(absl::string_view(entry.data(), entry.size()));
  });
}

absl::StatusOr<std::string> OptionsToSet(const std::optional<std::string>& flag,
                                         const char* existing) {
  std::string value;
  std::string source;
  if (flag.has_value()) {
    value = *flag;
    source = "--options";
  } else if (existing != nullptr && *existing != '\0') {
    value = existing;
    source = "ROCKPOOL_OPTIONS (from the environment)";
  } else {
    return std::string(kDefaultOptions);
  }
  absl::StatusOr<RockpoolOptions> parsed = ParseRockpoolOptionsString(value);
  if (!parsed.ok()) {
    absl::string_view why = parsed.status().message();
    absl::ConsumePrefix(&why, "rockpool: ");
    return absl::InvalidArgumentError(absl::StrCat(source, "=\"", value, "\": ", why));
  }
  return value;
}

int RunCommand(const std::vector<std::string>& args) {
  absl::StatusOr<RunRequest> request = ParseRunArguments(args);
  if (!request.ok()) return Fail(request.status().message(), 2);
  absl::StatusOr<std::string> options =
      OptionsToSet(request->options, std::getenv("ROCKPOOL_OPTIONS"));
  if (!options.ok()) return Fail(options.status().message(), 2);
  absl::StatusOr<std::string> program = ResolveProgram(request->argv[0]);
  if (!program.ok()) {
    // 127 as a shell says it: no such program; anything else about the
    // path (a loop, a directory it cannot search) is bad input.
    return Fail(program.status().message(), absl::IsNotFound(program.status()) ? 127 : 2);
  }
  absl::StatusOr<ObjectChoice> choice = ChooseObject(*program, request->object);
  if (!choice.ok()) return Fail(choice.status().message(), 2);
  if (access(choice->object_path.c_str(), R_OK) != 0) {
    return Fail(
        absl::StrCat(choice->object_path, ": ", std::strerror(errno), " (the objects are in ",
                     kLibDirVariable, ", default ", kDefaultLibDir, ")"),
        2);
  }
  std::optional<std::string> stats = request->stats;
  if (request->default_stats) {
    absl::StatusOr<std::string> dir = DefaultStatsDirectory(/*create=*/true);
    if (!dir.ok()) return Fail(absl::StrCat("--stats: ", dir.status().message()), 2);
    stats = absl::StrCat(*dir, "/", kDefaultStatsName);
  }
  if (stats.has_value()) {
    // The objects refuse such a path at exit, silently; say so now instead.
    // exec keeps this process's id: "%p" is this pid.
    const std::string path = absl::StrReplaceAll(*stats, {{"%p", absl::StrCat(getpid())}});
    if (absl::Status s = CheckOwnFileDirectory(path); !s.ok()) {
      return Fail(absl::StrCat("--stats=", *stats, ": ", s.message()), 2);
    }
  }
  const char* old_preload = std::getenv("LD_PRELOAD");
  const std::string preload =
      PreloadWith(old_preload != nullptr ? old_preload : "", choice->object_path);
  if (setenv("LD_PRELOAD", preload.c_str(), 1) != 0 ||
      setenv("ROCKPOOL_OPTIONS", options->c_str(), 1) != 0 ||
      (stats.has_value() && setenv("ROCKPOOL_STATS", stats->c_str(), 1) != 0) ||
      // The native object's own lines (registration, close reports) go to
      // ROCKPOOL_NATIVE_STATS (rocksdb_plugin/native/log_report.h).
      (stats.has_value() && choice->kind == ObjectKind::kNative &&
       setenv("ROCKPOOL_NATIVE_STATS", stats->c_str(), 1) != 0) ||
      (request->verbose && setenv("ROCKPOOL_VERBOSE", "1", 1) != 0)) {
    return Fail(absl::StrCat("cannot set the environment: ", std::strerror(errno)), 2);
  }
  if (request->verbose) {
    std::fprintf(stderr, "rockpool run: %s: %s\n", ObjectFileName(choice->kind),
                 choice->reason.c_str());
  }
  std::vector<char*> argv;
  for (std::string& a : request->argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(program->c_str(), argv.data());
  if (errno == ENOEXEC) {
    // As execvp: a file the kernel cannot run is a shell script.
    std::vector<char*> sh = {const_cast<char*>("/bin/sh"), program->data()};
    sh.insert(sh.end(), argv.begin() + 1, argv.end());
    execv("/bin/sh", sh.data());
  }
  return Fail(absl::StrCat(*program, ": ", std::strerror(errno)), 126);
}

}  // namespace rockpool::cli
