// The units a command-line tool's figures are in, and how each reads to a
// person: one way to print a size, a count or a time across the tools, so
// a one-line description and a table beside it agree.
#ifndef ROCKPOOL_TOOLS_CONSOLE_UNITS_H_
#define ROCKPOOL_TOOLS_CONSOLE_UNITS_H_

#include <string>

namespace rockpool::console {

// The order is part of the contract: sst_replay's JSON report names units
// by their position (tools/sst_replay/report.cc), so add new units at the
// end and never reorder or rename these.
enum class Unit { kBytes, kCount, kNanos, kRate, kRatio };

// "1.50 MiB", "6.76k", "12.3 ms": three significant digits, binary prefixes
// for sizes, decimal ones for counts. FormatValue picks by unit (a rate is
// MB/s, a ratio "4.000x").
std::string FormatBytes(double bytes);
std::string FormatCount(double n);
std::string FormatNanos(double ns);
std::string FormatValue(double v, Unit unit);

}  // namespace rockpool::console

#endif  // ROCKPOOL_TOOLS_CONSOLE_UNITS_H_
