// Where a program's dynamic loader finds one of its libraries, asked of the
// loader itself: `LD_TRACE_LOADED_OBJECTS=1 <PT_INTERP> PROGRAM` (what ldd
// runs) maps the program's libraries exactly as a start of PROGRAM would
// (RPATH/RUNPATH with $ORIGIN, LD_LIBRARY_PATH, ld.so.cache, the default
// folders), prints where it found each, and exits without running any of
// their code. Nothing is loaded into the rockpool command itself.
#ifndef ROCKPOOL_TOOLS_ROCKPOOL_LIBRARY_PATH_H_
#define ROCKPOOL_TOOLS_ROCKPOOL_LIBRARY_PATH_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/rockpool/elf_needed.h"

namespace rockpool::cli {

// From the loader's listing ("\tsoname => /path (0x...)" lines): the path of
// `soname`; NotFound "<soname>: not found ..." when the loader found no such
// library, or "<soname>: not listed ..." when the listing does not name it.
absl::StatusOr<std::string> LibraryInListing(absl::string_view listing, const std::string& soname);

// The path PROGRAM (already read: `file`) would load `soname` from, in this
// process's environment. Internal when the loader cannot be run.
absl::StatusOr<std::string> ResolveLibrary(const std::string& program, const ProgramFile& file,
                                           const std::string& soname);

}  // namespace rockpool::cli

#endif  // ROCKPOOL_TOOLS_ROCKPOOL_LIBRARY_PATH_H_
