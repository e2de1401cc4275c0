#include "tools/json/json_value.h"

#include <cmath>

#include "absl/strings/str_format.h"
#include "tools/json/json_string.h"

namespace rockpool::json {

Value Value::Bool(bool b) {
  Value v(Kind::kBool, "");
  v.bool_ = b;
  return v;
}

Value Value::Number(double v) {
  if (!std::isfinite(v)) return Value();
  return Value(Kind::kNumber, absl::StrFormat("%.17g", v));
}

Value Value::String(std::string s) { return Value(Kind::kString, std::move(s)); }

Value Value::MakeArray(Array items) {
  Value v(Kind::kArray, "");
  v.items_ = std::move(items);
  return v;
}

Value Value::MakeObject(Members members) {
  Value v(Kind::kObject, "");
  v.members_ = std::move(members);
  return v;
}

const Value* Value::Find(absl::string_view key) const {
  for (const auto& [name, value] : members_) {
    if (name == key) return &value;
  }
  return nullptr;
}

namespace {

bool IsContainer(const Value& v) {
  return v.kind() == Value::Kind::kArray || v.kind() == Value::Kind::kObject;
}

// `v` on one line; `comma` and `colon` separate items and names from values.
// Stops early once `out` is longer than `limit` (the caller only asks
// whether it fits).
void Append(const Value& v, const char* comma, const char* colon, size_t limit, std::string* out) {
  switch (v.kind()) {
    case Value::Kind::kNull:
      *out += "null";
      return;
    case Value::Kind::kBool:
      *out += v.bool_value() ? "true" : "false";
      return;
    case Value::Kind::kNumber:
      *out += v.text();
      return;
    case Value::Kind::kString:
      *out += JsonString(v.text());
      return;
    case Value::Kind::kArray:
    case Value::Kind::kObject: {
      const bool object = v.kind() == Value::Kind::kObject;
      *out += object ? '{' : '[';
      const size_t n = object ? v.members().size() : v.items().size();
      for (size_t i = 0; i < n && out->size() <= limit; ++i) {
        if (i > 0) *out += comma;
        if (object) absl::StrAppend(out, JsonString(v.members()[i].first), colon);
        Append(object ? v.members()[i].second : v.items()[i], comma, colon, limit, out);
      }
      *out += object ? '}' : ']';
      return;
    }
  }
}

// `v` starting at column `column` of a line indented by `indent`.
void AppendIndented(const Value& v, size_t indent, size_t column, size_t width, std::string* out) {
  // Built only as far as the line has room: a long container is not
  // written out whole at every level above its members.
  std::string line;
  Append(v, ", ", ": ", width > column ? width - column : 0, &line);
  const bool empty = v.items().empty() && v.members().empty();
  if (!IsContainer(v) || empty || column + line.size() <= width) {
    *out += line;
    return;
  }
  const bool object = v.kind() == Value::Kind::kObject;
  *out += object ? "{\n" : "[\n";
  const std::string pad(indent + 2, ' ');
  const size_t n = object ? v.members().size() : v.items().size();
  for (size_t i = 0; i < n; ++i) {
    std::string head = pad;
    if (object) absl::StrAppend(&head, JsonString(v.members()[i].first), ": ");
    *out += head;
    AppendIndented(object ? v.members()[i].second : v.items()[i], indent + 2, head.size(), width,
                   out);
    *out += i + 1 < n ? ",\n" : "\n";
  }
  out->append(indent, ' ');
  *out += object ? '}' : ']';
}

}  // namespace

std::string ToText(const Value& v) {
  std::string out;
  Append(v, ",", ":", std::string::npos, &out);
  return out;
}

std::string ToIndentedText(const Value& v, size_t width) {
  std::string out;
  AppendIndented(v, 0, 0, width, &out);
  return out;
}

}  // namespace rockpool::json
