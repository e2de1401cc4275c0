#include "tools/json/object_reader.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace rockpool::json {
namespace {

const char* KindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kNull:
      return "null";
    case Value::Kind::kBool:
      return "true or false";
    case Value::Kind::kNumber:
      return "a number";
    case Value::Kind::kString:
      return "a string";
    case Value::Kind::kArray:
      return "an array";
    case Value::Kind::kObject:
      return "an object";
  }
  return "?";
}

const Value& EmptyObject() {
  static const Value* const kEmpty = new Value(Value::MakeObject({}));
  return *kEmpty;
}

}  // namespace

ObjectReader::ObjectReader(const Value& object, std::string path)
    : ObjectReader(object, std::move(path), nullptr) {}

ObjectReader::ObjectReader(const Value& object, std::string path, absl::Status* status)
    : object_(object), path_(std::move(path)), status_(status ? status : &own_status_) {
  if (object_.kind() != Value::Kind::kObject && status_->ok()) {
    *status_ = absl::InvalidArgumentError(absl::StrCat(path_, ": not an object"));
  }
}

void ObjectReader::Fail(absl::string_view key, absl::string_view what) {
  if (ok()) *status_ = absl::InvalidArgumentError(absl::StrCat(path_, ".", key, ": ", what));
}

const Value* ObjectReader::Member(absl::string_view key, Value::Kind kind) {
  if (!ok()) return nullptr;
  const Value* v = object_.Find(key);
  if (v == nullptr) {
    Fail(key, "missing");
  } else if (v->kind() != kind) {
    Fail(key, absl::StrCat("not ", KindName(kind)));
  } else {
    return v;
  }
  return nullptr;
}

ObjectReader& ObjectReader::String(absl::string_view key, std::string* out) {
  if (const Value* v = Member(key, Value::Kind::kString)) *out = v->text();
  return *this;
}

ObjectReader& ObjectReader::Bool(absl::string_view key, bool* out) {
  if (const Value* v = Member(key, Value::Kind::kBool)) *out = v->bool_value();
  return *this;
}

ObjectReader& ObjectReader::Double(absl::string_view key, double* out) {
  const Value* v = Member(key, Value::Kind::kNumber);
  double d = 0;
  if (v == nullptr) return *this;
  if (!absl::SimpleAtod(v->text(), &d) || !std::isfinite(d)) {
    Fail(key, "not a finite number");
  } else {
    *out = d;
  }
  return *this;
}

ObjectReader& ObjectReader::Strings(absl::string_view key, std::vector<std::string>* out) {
  const Value* v = Member(key, Value::Kind::kArray);
  for (size_t i = 0; v != nullptr && i < v->items().size() && ok(); ++i) {
    if (v->items()[i].kind() != Value::Kind::kString) {
      Fail(absl::StrCat(key, "[", i, "]"), "not a string");
    } else {
      out->push_back(v->items()[i].text());
    }
  }
  return *this;
}

ObjectReader& ObjectReader::IntegerMap(absl::string_view key, std::map<std::string, int64_t>* out) {
  const Value* v = Member(key, Value::Kind::kObject);
  for (size_t i = 0; v != nullptr && i < v->members().size() && ok(); ++i) {
    const auto& [name, value] = v->members()[i];
    if (!IntegerOf(value, &(*out)[name])) Fail(absl::StrCat(key, ".", name), "not an integer");
  }
  return *this;
}

ObjectReader& ObjectReader::StringMap(absl::string_view key,
                                      std::map<std::string, std::string>* out) {
  const Value* v = Member(key, Value::Kind::kObject);
  for (size_t i = 0; v != nullptr && i < v->members().size() && ok(); ++i) {
    const auto& [name, value] = v->members()[i];
    if (value.kind() != Value::Kind::kString) Fail(absl::StrCat(key, ".", name), "not a string");
    (*out)[name] = value.text();
  }
  return *this;
}

ObjectReader ObjectReader::Object(absl::string_view key) {
  const Value* v = Member(key, Value::Kind::kObject);
  return ObjectReader(v ? *v : EmptyObject(), absl::StrCat(path_, ".", key), status_);
}

size_t ObjectReader::Size(absl::string_view key) {
  const Value* v = Member(key, Value::Kind::kArray);
  return v ? v->items().size() : 0;
}

ObjectReader ObjectReader::Element(absl::string_view key, size_t index) {
  const Value* v = object_.Find(key);
  const bool in = ok() && v && v->kind() == Value::Kind::kArray && index < v->items().size();
  if (ok() && !in) Fail(key, absl::StrCat("no element ", index));
  return ObjectReader(in ? v->items()[index] : EmptyObject(),
                      absl::StrCat(path_, ".", key, "[", index, "]"), status_);
}

}  // namespace rockpool::json
