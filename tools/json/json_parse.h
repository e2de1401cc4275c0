// Reading JSON text (RFC 8259) into a json::Value: the files the tools
// write for each other (sst_replay's job and result files), which a reader
// must not trust further than their syntax.
#ifndef ROCKPOOL_TOOLS_JSON_JSON_PARSE_H_
#define ROCKPOOL_TOOLS_JSON_JSON_PARSE_H_

#include <cstddef>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "tools/json/json_value.h"

namespace rockpool::json {

// Arrays and objects nested deeper than this are refused, so that no text
// can exhaust the stack of the recursive reader.
inline constexpr size_t kMaxDepth = 64;

// The one value `text` holds (whitespace around it allowed). InvalidArgument
// naming the byte offset for anything else: a syntax error, text after the
// value, nesting deeper than kMaxDepth, an object naming a member twice, a
// \u escape that is a lone surrogate. A string's unescaped bytes are taken
// as they are (a path need not be UTF-8); control bytes must be escaped.
absl::StatusOr<Value> Parse(absl::string_view text);

}  // namespace rockpool::json

#endif  // ROCKPOOL_TOOLS_JSON_JSON_PARSE_H_
