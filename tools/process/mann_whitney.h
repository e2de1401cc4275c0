// The Mann-Whitney U test, the project's one in C++: whether two samples of
// a noisy measure (wall time, peak RSS of repeated runs) differ, with no
// assumption about their distribution. compare_runs.h uses it for
// sst_replay's table and felt section; bench/felt_stats.py agrees with it
// (the same exact bound).
#ifndef ROCKPOOL_TOOLS_PROCESS_MANN_WHITNEY_H_
#define ROCKPOOL_TOOLS_PROCESS_MANN_WHITNEY_H_

#include <vector>

namespace rockpool::process {

// Two-sided p-value of the Mann-Whitney U test (as benchstat uses): exact
// for up to 40 values in all, normal approximation beyond; ties count half.
// 1 if either sample is empty.
double MannWhitneyP(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace rockpool::process

#endif  // ROCKPOOL_TOOLS_PROCESS_MANN_WHITNEY_H_
