// One sst_replay invocation, parent side (the middle of the parent's three
// layers: sst_replay.cc's entry, this, child_runs.h): the scratch directory,
// the inputs (or the generated default workload), each mode's plan (plan.h)
// run as alternating stock/pooled child processes (child_runs.h), and the
// report (table or JSON, optional SVG). Everything it writes goes into the
// scratch directory; inputs are only read.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_SESSION_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_SESSION_H_

#include <memory>
#include <string>
#include <vector>

#include "tools/sst_replay/command_line.h"

namespace rockpool::replay {

// Runs the whole replay; returns sst_replay's exit code (0 identical, 1
// outputs differ, 2 bad input, 3 internal error), having printed the report
// or a one-line error.
int RunSession(const Settings& settings, std::vector<std::string> inputs);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_SESSION_H_
