#include "tools/process/preload_list.h"

#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace rockpool::process {

std::string PreloadFirst(std::string_view first, std::string_view existing,
                         absl::FunctionRef<bool(std::string_view entry)> drop) {
  std::vector<absl::string_view> kept;
  if (!first.empty()) kept.emplace_back(first.data(), first.size());
  for (absl::string_view e : absl::StrSplit(absl::string_view(existing.data(), existing.size()),
                                            absl::ByAnyChar(": "), absl::SkipEmpty())) {
    const std::string_view entry(e.data(), e.size());
    if (entry == first || drop(entry)) continue;
    kept.push_back(e);
  }
  return absl::StrJoin(kept, ":");
}

std::string PreloadFirst(std::string_view first, std::string_view existing) {
  return PreloadFirst(first, existing, [](std::string_view) { return false; });
}

}  // namespace rockpool::process
