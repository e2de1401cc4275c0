#include "rocksdb_plugin/legacy/environment.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "compression/annotated_mutex.h"
#include "rocksdb_plugin/legacy/refusal.h"
#include "rocksdb_plugin/legacy/runtime.h"
#include "rocksdb_plugin/own_file.h"
#include "rocksdb_plugin/report.h"
#include "rocksdb_plugin/verbose.h"

namespace rockpool::legacy {
namespace {

constexpr uint64_t kDefaultStatsSeconds = 10;

// ` refused="<why>"` in a process rockpool refuses to serve (refusal.h).
std::string RefusedToken() {
  const absl::Status& refusal = Refusal();
  return refusal.ok() ? "" : absl::StrCat(" refused=\"", refusal.message(), "\"");
}

// The ROCKPOOL_STATS file of this process. Leaked on purpose: the exit
// handler and the period thread may run after static destructors.
class StatsFile {
 public:
  StatsFile(std::string path, mode_t mode, pid_t owner)
      : path_(std::move(path)), mode_(mode), owner_(owner) {}

  void Write(const char* event) {
    // A forked child inherits the handler and the path, not the right to
    // overwrite its parent's figures.
    if (getpid() != owner_) return;
    AnnotatedMutexLock lock(&mu_);
    const CompressionPoolsStats now = Stats();
    // Wrappers (shell scripts, mysqld_safe) run with the same environment:
    // a process that leased nothing leaves another process's figures alone.
    if (now.Total().created + now.Total().reused == 0 && access(path_.c_str(), F_OK) == 0) return;
    const std::string line =
        absl::StrCat(FormatReport(absl::StrCat("event=", event, " pid=", owner_), CurrentMode(),
                                  now, last_, DiscardedContexts()),
                     " |", CodecStates(), RefusedToken(), "\n");
    last_ = now;
    // A new file renamed over the old one (own_file.h): never written
    // through a link someone planted at the path.
    if (absl::Status s = ReplaceOwnFile(path_, line, mode_); !s.ok() && !failure_reported_) {
      failure_reported_ = true;  // once, not every period
      SayVerbose(absl::StrCat(kStatsVariable, ": ", s.message()));
    }
  }

 private:
  const std::string path_;
  const mode_t mode_;
  const pid_t owner_;
  absl::Mutex mu_;
  CompressionPoolsStats last_ ABSL_GUARDED_BY(mu_);
  bool failure_reported_ ABSL_GUARDED_BY(mu_) = false;
};

std::atomic<StatsFile*> g_stats{nullptr};

void WriteAtExit() { WriteStatsFile("exit"); }

// A thread of the host process that must never take its signals: with every
// signal blocked, a SIGTERM meant for the host's sigwait() thread (mariadbd)
// cannot land here and kill the process by its default action.
void StartPeriodThread(uint64_t seconds) {
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  try {
    std::thread([seconds] {
      for (;;) {
        absl::SleepFor(absl::Seconds(static_cast<int64_t>(seconds)));
        WriteStatsFile("period");
      }
    }).detach();
  } catch (...) {
    std::fprintf(stderr, "rockpool: %s: cannot start the period thread; writing at exit only\n",
                 kStatsVariable);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// "", or the stderr line of a bad ROCKPOOL_STATS* setting.
std::string SetUpStatsFile() {
  const char* path = secure_getenv(kStatsVariable);
  if (path == nullptr || *path == '\0' || g_stats.load() != nullptr) return "";
  uint64_t seconds = kDefaultStatsSeconds;
  if (const char* s = secure_getenv(kStatsSecondsVariable); s != nullptr && *s != '\0') {
    if (!absl::SimpleAtoi(s, &seconds) || seconds > RockpoolOptions::kIdleSecondsLimit) {
      return absl::StrCat("rockpool: ", kStatsSecondsVariable, "=\"", s,
                          "\" is not a number of seconds; statistics are not written\n");
    }
  }
  mode_t mode = kOwnFileMode;
  if (const char* m = secure_getenv(kStatsModeVariable); m != nullptr && *m != '\0') {
    absl::StatusOr<mode_t> parsed = ParseFileMode(m);
    if (!parsed.ok()) {
      return absl::StrCat("rockpool: ", kStatsModeVariable, "=", parsed.status().message(),
                          "; statistics are not written\n");
    }
    mode = *parsed;
  }
  // "%p" in the path stands for the process id (one file per process).
  auto* file = new (std::nothrow)
      StatsFile(absl::StrReplaceAll(path, {{"%p", absl::StrCat(getpid())}}), mode, getpid());
  if (file == nullptr) return "";
  g_stats.store(file);
  std::atexit(WriteAtExit);
  if (seconds > 0) StartPeriodThread(seconds);
  return "";
}

struct LoadTimeConfiguration {
  LoadTimeConfiguration() noexcept {
    try {
      const EnvironmentMessages messages = ConfigureFromEnvironment(VerboseEnabled());
      if (!messages.errors.empty()) std::fputs(messages.errors.c_str(), stderr);
      if (!messages.activation.empty()) SayVerbose(messages.activation);
    } catch (...) {
      std::fputs("rockpool: reading the environment failed; pooling stays off\n", stderr);
    }
  }
};

const LoadTimeConfiguration load_time_configuration;

}  // namespace

absl::StatusOr<std::optional<RockpoolOptions>> OptionsFromEnvironmentValue(const char* value) {
  if (value == nullptr || absl::StripAsciiWhitespace(value).empty()) return std::nullopt;
  absl::StatusOr<RockpoolOptions> parsed = ParseRockpoolOptionsString(value);
  if (!parsed.ok()) {
    absl::string_view why = parsed.status().message();
    absl::ConsumePrefix(&why, "rockpool: ");
    return absl::InvalidArgumentError(
        absl::StrCat("rockpool: ", kOptionsVariable, "=\"", value, "\": ", why));
  }
  return std::optional<RockpoolOptions>(*parsed);
}

EnvironmentMessages ConfigureFromEnvironment(bool describe) {
  EnvironmentMessages out;
  out.errors = SetUpStatsFile();
  if (const absl::Status& refusal = Refusal(); !refusal.ok()) {
    out.activation = absl::StrCat("not serving this process: ", refusal.message(),
                                  "; every call forwards, ", kOptionsVariable, " is ignored");
    return out;
  }
  absl::StatusOr<std::optional<RockpoolOptions>> options =
      OptionsFromEnvironmentValue(secure_getenv(kOptionsVariable));
  if (!options.ok()) {
    absl::StrAppend(&out.errors, options.status().message(), "; pooling stays off\n");
    return out;
  }
  if (!options->has_value()) return out;
  Configure(**options, ConfigSource::kEnvironment);
  if (!describe) return out;
  out.activation =
      absl::StrCat("active from ", kOptionsVariable, ": ", (*options)->ToString(),
                   " mode=", ModeName(CurrentMode()), "; ", CheckInterposition().ToString());
  return out;
}

void WriteStatsFile(const char* event) noexcept {
  try {
    if (StatsFile* file = g_stats.load()) file->Write(event);
  } catch (...) {
  }
}

}  // namespace rockpool::legacy
