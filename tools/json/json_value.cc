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

void Append(const Value& v, std::string* out) {
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
    case Value::Kind::kArray: {
      *out += '[';
      const char* comma = "";
      for (const Value& item : v.items()) {
        *out += comma;
        Append(item, out);
        comma = ",";
      }
      *out += ']';
      return;
    }
    case Value::Kind::kObject: {
      *out += '{';
      const char* comma = "";
      for (const auto& [name, value] : v.members()) {
        absl::StrAppend(out, comma, JsonString(name), ":");
        Append(value, out);
        comma = ",";
      }
      *out += '}';
      return;
    }
  }
}

}  // namespace

std::string ToText(const Value& v) {
  std::string out;
  Append(v, &out);
  return out;
}

}  // namespace rockpool::json
