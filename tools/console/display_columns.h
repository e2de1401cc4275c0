// How wide text is on a terminal, for tables a tool prints for a person.
// std::string::size counts bytes, and a cell such as "3.2 ms ±4%" has a
// two-byte "±": padding by bytes would shift every column after it.
#ifndef ROCKPOOL_TOOLS_CONSOLE_DISPLAY_COLUMNS_H_
#define ROCKPOOL_TOOLS_CONSOLE_DISPLAY_COLUMNS_H_

#include <cstddef>
#include <string>

namespace rockpool::console {

// The columns UTF-8 text takes: one per code point (continuation bytes do
// not count). Wide characters (CJK, emoji) count one too: the tools print
// none.
size_t DisplayColumns(const std::string& s);

// `s` with spaces appended up to `width` columns; unchanged if it is
// already that wide or wider (a cell is never cut).
std::string PadColumns(std::string s, size_t width);

}  // namespace rockpool::console

#endif  // ROCKPOOL_TOOLS_CONSOLE_DISPLAY_COLUMNS_H_
