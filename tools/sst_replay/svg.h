// --svg: one panel per mode, plain SVG 1.1 (no scripts, no external files):
//   left   cumulative bytes allocated over the replay, stock vs pooled
//          (whole process: solid; codec libraries: dashed);
//   right  the main figures, pooled as a percentage of stock (stock = 100%).
#ifndef ROCKPOOL_TOOLS_SST_REPLAY_SVG_H_
#define ROCKPOOL_TOOLS_SST_REPLAY_SVG_H_

#include <string>

#include "tools/sst_replay/report.h"

namespace rockpool::replay {

std::string RenderSvg(const Report& report);

}  // namespace rockpool::replay

#endif  // ROCKPOOL_TOOLS_SST_REPLAY_SVG_H_
