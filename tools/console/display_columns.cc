#include "tools/console/display_columns.h"

namespace rockpool::console {

size_t DisplayColumns(const std::string& s) {
  size_t columns = 0;
  // UTF-8 continuation bytes are 10xxxxxx; every other byte starts a code point.
  for (char c : s) columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return columns;
}

std::string PadColumns(std::string s, size_t width) {
  const size_t columns = DisplayColumns(s);
  if (columns < width) s.append(width - columns, ' ');
  return s;
}

}  // namespace rockpool::console
