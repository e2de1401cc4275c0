// What the report says of each input (report.h InputReport) from what the
// scan read: the SSTs first, then the blob files, the order plan.h keeps.
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_INPUT_REPORTS_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_INPUT_REPORTS_H_

#include <vector>

#include "tools/sst_replay/blob_inputs.h"
#include "tools/sst_replay/inputs.h"
#include "tools/sst_replay/report.h"

namespace rockpool::replay {

// One InputReport per input; the per-mode verdicts (blocks_mode,
// compaction_mode) are left for the modes to fill.
std::vector<InputReport> InputReports(const std::vector<InputFile>& ssts,
                                      const std::vector<BlobInput>& blobs);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_INPUT_REPORTS_H_
