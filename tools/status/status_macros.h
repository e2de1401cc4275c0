// Early returns on a failed absl::Status or absl::StatusOr, for functions
// that themselves return absl::Status or absl::StatusOr. Abseil's own
// macros are internal to Google (Debian's libabsl has none), so the tools
// spell the two that every reader and writer needs here, once:
//
//   ROCKPOOL_RETURN_IF_ERROR(file.Flush());
//   ROCKPOOL_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
//   ROCKPOOL_ASSIGN_OR_RETURN(auto handles, file.DataBlockHandles());
//
// Each evaluates its expression exactly once; a failure is returned as it
// is (its code and message unchanged; add context where it is handled).
// ROCKPOOL_ASSIGN_OR_RETURN declares or assigns `lhs` from the value moved
// out of the StatusOr; it is a statement (not an expression) and may appear
// once per line. A `lhs` or `expr` with a comma outside parentheses (a
// template's arguments) is split by the preprocessor: use `auto` or an
// alias.
#ifndef ROCKPOOL_TOOLS_STATUS_STATUS_MACROS_H_
#define ROCKPOOL_TOOLS_STATUS_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define ROCKPOOL_RETURN_IF_ERROR(expr)                                      \
  do {                                                                      \
    if (::absl::Status rockpool_status_ = (expr); !rockpool_status_.ok()) { \
      return rockpool_status_;                                              \
    }                                                                       \
  } while (false)

#define ROCKPOOL_ASSIGN_OR_RETURN(lhs, expr) \
  ROCKPOOL_ASSIGN_OR_RETURN_IMPL_(ROCKPOOL_STATUS_CONCAT_(rockpool_statusor_, __LINE__), lhs, expr)

// Implementation details: the StatusOr gets a name of its own per line.
#define ROCKPOOL_STATUS_CONCAT_INNER_(a, b) a##b
#define ROCKPOOL_STATUS_CONCAT_(a, b) ROCKPOOL_STATUS_CONCAT_INNER_(a, b)
#define ROCKPOOL_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                    \
  if (!statusor.ok()) return std::move(statusor).status();   \
  lhs = *std::move(statusor)

#endif  // ROCKPOOL_TOOLS_STATUS_STATUS_MACROS_H_
