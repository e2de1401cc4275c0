// A JSON value held in memory, and its text: what a tool builds to write a
// document, and what json_parse.h reads back. Numbers keep their literal
// text, so an integer of any width (a uint64_t byte count, say) survives a
// round trip exactly; object members keep their order.
#ifndef ROCKPOOL_TOOLS_JSON_JSON_VALUE_H_
#define ROCKPOOL_TOOLS_JSON_JSON_VALUE_H_

#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/strings/str_cat.h"

namespace rockpool::json {

class Value {
 public:
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  using Array = std::vector<Value>;
  using Members = std::vector<std::pair<std::string, Value>>;

  Value() = default;  // null
  static Value Bool(bool b);
  // An integer, written exactly.
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
  static Value Integer(T v) {
    return Value(Kind::kNumber, absl::StrCat(v));
  }
  // A finite double, written with 17 significant digits (read back the
  // same); a NaN or infinity, which JSON cannot hold, is written as null.
  static Value Number(double v);
  static Value String(std::string s);
  static Value MakeArray(Array items);
  static Value MakeObject(Members members);
  // A number from its literal text; the caller (json_parse.h) has checked
  // that it is one.
  static Value NumberLiteral(std::string text) { return Value(Kind::kNumber, std::move(text)); }

  Kind kind() const { return kind_; }
  bool bool_value() const { return bool_; }
  // A string's bytes, or a number's literal text.
  const std::string& text() const { return text_; }
  const Array& items() const { return items_; }
  const Members& members() const { return members_; }
  // The object member named `key`; nullptr if absent or not an object.
  const Value* Find(absl::string_view key) const;

 private:
  Value(Kind kind, std::string text) : kind_(kind), text_(std::move(text)) {}

  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  std::string text_;
  Array items_;
  Members members_;
};

// Compact JSON text of `v` (no spaces or newlines). Strings are escaped by
// json_string.h: their other bytes are written as they are.
std::string ToText(const Value& v);

// JSON text of `v` for a person to read as well as a program: an array or
// object that fits on the rest of its line within `width` columns (written
// with ", " and ": ") stays on that line; a longer one puts each item or
// member on a line of its own, indented two spaces deeper (an empty one
// stays "[]" or "{}"). No final newline.
std::string ToIndentedText(const Value& v, size_t width = 100);

}  // namespace rockpool::json

#endif  // ROCKPOOL_TOOLS_JSON_JSON_VALUE_H_
