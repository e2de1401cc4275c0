// A JSON string literal, for the tools' --json output.
#ifndef ROCKPOOL_TOOLS_JSON_JSON_STRING_H_
#define ROCKPOOL_TOOLS_JSON_JSON_STRING_H_

#include <string>
#include <string_view>

namespace rockpool::json {

// `s` quoted and escaped: ", \, \n, \r, \t by name, other control bytes as
// \u00XX; every other byte as is (the tools' strings are UTF-8 or ASCII).
std::string JsonString(std::string_view s);

}  // namespace rockpool::json

#endif  // ROCKPOOL_TOOLS_JSON_JSON_STRING_H_
