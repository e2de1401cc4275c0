// ROCKPOOL_VERBOSE: rockpool is silent on stderr unless asked.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_VERBOSE_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_VERBOSE_H_

#include <string_view>

namespace rockpool::legacy {

// True if ROCKPOOL_VERBOSE is "1" (read once; thread-safe).
bool VerboseEnabled() noexcept;
// If VerboseEnabled(): writes "rockpool[<pid>]: <line>\n" to stderr in one
// write(2). Never throws.
void SayVerbose(std::string_view line) noexcept;

}  // namespace rockpool::legacy

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_LEGACY_VERBOSE_H_
