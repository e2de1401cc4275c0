// LD_PRELOAD composed: an object put first in a process's preload list.
// ld.so reads LD_PRELOAD as entries separated by ':' or spaces and searches
// the preloaded objects in that order, right after the executable; the
// first one that defines a symbol wins. `rockpool run` puts the rockpool
// object there, sst_replay --allocator the allocator of its children.
#ifndef ROCKPOOL_TOOLS_PROCESS_PRELOAD_LIST_H_
#define ROCKPOOL_TOOLS_PROCESS_PRELOAD_LIST_H_

#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace rockpool::process {

// `existing` (an LD_PRELOAD value) with `first` in front: `first` appears
// once (an entry equal to it further on is dropped), every entry `drop`
// says true for is dropped, empty entries are dropped, the rest keep their
// order, and all are joined with ':'. An empty `first` adds nothing.
std::string PreloadFirst(std::string_view first, std::string_view existing,
                         absl::FunctionRef<bool(std::string_view entry)> drop);
// The same, dropping nothing else.
std::string PreloadFirst(std::string_view first, std::string_view existing);

}  // namespace rockpool::process

#endif  // ROCKPOOL_TOOLS_PROCESS_PRELOAD_LIST_H_
