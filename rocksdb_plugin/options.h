// RockpoolOptions: the user-visible configuration of rockpool, shared by the
// legacy face (RocksDB 7.8.3, `listeners={id=rockpool;...}`) and the native
// face (RocksDB >= 10.4). No RocksDB headers here: values arrive as the
// RocksDB-style `name=value` pairs RocksDB's option parser has already split,
// and errors are absl::Status (InvalidArgument naming the option); each face
// converts them to rocksdb::Status.
//
// Options (names and values are case-sensitive, as in RocksDB):
//   enabled           bool  true   kill switch: false forwards every codec
//                                   call to the library unchanged
//   max_idle_per_key  uint  8      contexts retained per pool key, idle or
//                                   leased (zstd keys are size classes,
//                                   ZstdKey; deflate keys by level, window
//                                   bits, memLevel, strategy; inflate by
//                                   window bits); 0 retains nothing: every
//                                   call forwarded, contexts created and
//                                   freed as stock RocksDB does
//   idle_seconds      uint  60     idle contexts unused this long are freed;
//                                   0 keeps them until trimmed (no age limit)
//   measure_stock     bool  false  create and free contexts exactly as stock
//                                   RocksDB does (nothing is kept idle) but
//                                   through rockpool's counting allocator, so
//                                   the statistics show the real stock bytes
//                                   and calls; for measuring what pooling
//                                   saves. Ignored when enabled=false.
// Booleans accept true/false/1/0 (RocksDB's spelling); integers are unsigned
// decimal. Surrounding whitespace is ignored.
#ifndef ROCKPOOL_ROCKSDB_PLUGIN_OPTIONS_H_
#define ROCKPOOL_ROCKSDB_PLUGIN_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compression/context_pool.h"

namespace rockpool {

struct RockpoolOptions {
  // The one type, default and limit of each pool option, for both faces and
  // the tools (sst_replay's flags and jobs).
  using MaxIdlePerKey = size_t;
  using IdleSeconds = uint64_t;
  static constexpr MaxIdlePerKey kDefaultMaxIdlePerKey = PoolOptions::kDefaultMaxRetainedPerKey;
  static constexpr IdleSeconds kDefaultIdleSeconds = PoolOptions::kDefaultIdleSeconds;
  static constexpr MaxIdlePerKey kMaxIdlePerKeyLimit = 65536;
  static constexpr IdleSeconds kIdleSecondsLimit = uint64_t{10} * 365 * 24 * 3600;  // 10 years

  bool enabled = true;
  MaxIdlePerKey max_idle_per_key = kDefaultMaxIdlePerKey;
  IdleSeconds idle_seconds = kDefaultIdleSeconds;
  bool measure_stock = false;

  // What the options ask of the codec calls.
  enum class Mode {
    kForward,       // every call goes to the library unchanged
    kPool,          // contexts are leased from bounded pools
    kMeasureStock,  // stock create/free pattern, counted (zero-capacity pools)
  };
  Mode mode() const;

  // The pool configuration these options imply (capacity 0 unless kPool).
  PoolOptions ToPoolOptions() const;

  // "enabled=true;max_idle_per_key=8;idle_seconds=60;measure_stock=false":
  // every option, in a fixed order, parseable by ParseRockpoolOptionsString.
  std::string ToString() const;

  friend bool operator==(const RockpoolOptions&, const RockpoolOptions&) = default;
};

// Every option name, in documentation order.
const std::vector<std::string>& RockpoolOptionNames();

// Sets one option. InvalidArgument naming the option for an unknown name or a
// bad value; *options is unchanged on error.
absl::Status SetRockpoolOption(std::string_view name, std::string_view value,
                               RockpoolOptions* options);

// The value of one option as text (the form SetRockpoolOption accepts).
absl::StatusOr<std::string> GetRockpoolOption(std::string_view name,
                                              const RockpoolOptions& options);

// Applies name=value pairs on top of `base`, in name order (so the first
// error reported is deterministic). With `ignore_unknown`, unknown names are
// skipped (RocksDB's ignore_unknown_options, for OPTIONS files written by a
// newer rockpool); bad values are always errors.
absl::StatusOr<RockpoolOptions> ParseRockpoolOptions(
    std::vector<std::pair<std::string, std::string>> pairs, const RockpoolOptions& base = {},
    bool ignore_unknown = false);

template <typename Map>
absl::StatusOr<RockpoolOptions> ParseRockpoolOptionsMap(const Map& map,
                                                        const RockpoolOptions& base = {},
                                                        bool ignore_unknown = false) {
  return ParseRockpoolOptions(
      std::vector<std::pair<std::string, std::string>>(map.begin(), map.end()), base,
      ignore_unknown);
}

// Parses "name=value;name=value" (empty items and surrounding whitespace are
// ignored; an optional enclosing pair of braces is stripped). A name given
// twice is an error.
absl::StatusOr<RockpoolOptions> ParseRockpoolOptionsString(std::string_view text,
                                                           const RockpoolOptions& base = {});

}  // namespace rockpool

#endif  // ROCKPOOL_ROCKSDB_PLUGIN_OPTIONS_H_
