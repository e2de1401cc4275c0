#include "tools/process/allocator_check.h"

#include <cstdlib>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace rockpool::process {

absl::Status CheckActiveAllocator(std::string_view flag, const std::string& requested,
                                  const std::string& preload, ActiveAllocator* active) {
  const absl::string_view flag_name(flag.data(), flag.size());
  auto fail = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag_name, "=", requested, ": ", absl::string_view(why.data(), why.size())));
  };
  if (!active->problem.empty()) return fail(active->problem);
  if (preload.empty()) {
    if (active->name == "glibc" || (SanitizerBuild() && active->name == "sanitizer runtime")) {
      return absl::OkStatus();
    }
    const char* ld_preload = std::getenv("LD_PRELOAD");
    return fail(absl::StrCat(
        "malloc in this child is served by ", DescribeAllocator(*active), ", not glibc's",
        ld_preload != nullptr && *ld_preload != '\0'
            ? absl::StrCat("; LD_PRELOAD=", ld_preload, " preloads it: unset it, or name it with ",
                           flag_name, "=PATH")
            : ""));
  }
  const std::string mapped = MappedAs(preload);
  if (!SameFile(active->object, preload)) {
    return fail(absl::StrCat(preload, " was preloaded, but malloc in this child is served by ",
                             DescribeAllocator(*active),
                             mapped.empty() ? " (the loader did not map it)" : ""));
  }
  absl::StrAppend(&active->evidence, "; /proc/self/maps maps ", mapped);
  return absl::OkStatus();
}

}  // namespace rockpool::process
