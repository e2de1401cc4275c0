// The units sst_replay's figures are in, and how each reads to a person.
// Below the report: the inputs' and the plan's one-line descriptions print
// sizes and counts the same way the tables do.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_UNITS_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_UNITS_H_

#include <string>

namespace rockpool::replay {

enum class Unit { kBytes, kCount, kNanos, kRate, kRatio };  // report.cc names them in order

// "1.50 MiB", "6.76k", "12.3 ms"; FormatValue picks by unit.
std::string FormatBytes(double bytes);
std::string FormatCount(double n);
std::string FormatNanos(double ns);
std::string FormatValue(double v, Unit unit);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_UNITS_H_
