#include "tools/sst_replay/allocator_check.h"

#include <cstdlib>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace rockpool::replay {

absl::Status CheckActiveAllocator(const std::string& requested, const std::string& preload,
                                  process::ActiveAllocator* active) {
  auto fail = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("--allocator=", requested, ": ", absl::string_view(why.data(), why.size())));
  };
  if (!active->problem.empty()) return fail(active->problem);
  if (preload.empty()) {
    if (active->name == "glibc" ||
        (process::SanitizerBuild() && active->name == "sanitizer runtime")) {
      return absl::OkStatus();
    }
    const char* ld_preload = std::getenv("LD_PRELOAD");
    return fail(absl::StrCat(
        "malloc in this child is served by ", process::DescribeAllocator(*active), ", not glibc's",
        ld_preload != nullptr && *ld_preload != '\0'
            ? absl::StrCat("; LD_PRELOAD=", ld_preload,
                           " preloads it: unset it, or name it with --allocator=PATH")
            : ""));
  }
  const std::string mapped = process::MappedAs(preload);
  if (!process::SameFile(active->object, preload)) {
    return fail(absl::StrCat(preload, " was preloaded, but malloc in this child is served by ",
                             process::DescribeAllocator(*active),
                             mapped.empty() ? " (the loader did not map it)" : ""));
  }
  absl::StrAppend(&active->evidence, "; /proc/self/maps maps ", mapped);
  return absl::OkStatus();
}

void AddAllocatorFacts(const process::ActiveAllocator& active, RunResult* result) {
  result->facts["allocator"] = active.name;
  result->facts["allocator_version"] = active.version;
  result->facts["allocator_object"] = active.object;
  result->facts["allocator_evidence"] = active.evidence;
}

}  // namespace rockpool::replay
