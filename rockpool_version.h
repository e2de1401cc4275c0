// The rockpool release version: the one place it is written. `rockpool
// --version`, `sst_replay --version` and tools/package.sh (the Debian
// package's version) read it from here; CHANGELOG.md says what each
// version brought.
#ifndef ROCKPOOL_VERSION_H_
#define ROCKPOOL_VERSION_H_

#define ROCKPOOL_VERSION "0.4.0"

#endif  // ROCKPOOL_VERSION_H_
