// Reading a parsed JSON object (json_parse.h) into a struct, member by
// member, with one error for the whole read: the first member that is
// missing or not what the struct needs, named by its path
// ("job.files[2].codec.level: not an integer in range"). Every member read
// is required; members nobody reads are ignored.
//
//   ObjectReader job(doc, "job");
//   job.String("mode", &out.mode).Integer("block_size", &out.block_size);
//   for (size_t i = 0; i < job.Size("files"); ++i) ReadFile(job.Element("files", i));
//   if (!job.ok()) return job.status();
#ifndef ROCKPOOL_TOOLS_JSON_OBJECT_READER_H_
#define ROCKPOOL_TOOLS_JSON_OBJECT_READER_H_

#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "tools/json/json_value.h"

namespace rockpool::json {

// Integer-valued text of a JSON number: an optional '-' and digits, no
// fraction or exponent, within T's range (a negative value for an unsigned
// T, say, is refused rather than wrapped).
template <typename T>
bool IntegerOf(const Value& v, T* out) {
  static_assert(std::is_integral_v<T>);
  using Wide = std::conditional_t<std::is_unsigned_v<T>, uint64_t, int64_t>;
  if (v.kind() != Value::Kind::kNumber) return false;
  if (v.text().find_first_of(".eE") != std::string::npos) return false;
  Wide wide = 0;
  if (!absl::SimpleAtoi(v.text(), &wide)) return false;
  const T narrow = static_cast<T>(wide);
  if (static_cast<Wide>(narrow) != wide) return false;
  *out = narrow;
  return true;
}

class ObjectReader {
 public:
  // `path` names `object` in errors; `object` must outlive the reader. Not an
  // object: the reader fails at once.
  ObjectReader(const Value& object, std::string path);
  ObjectReader(const ObjectReader&) = delete;
  ObjectReader& operator=(const ObjectReader&) = delete;

  // Each reads a required member into `out`, or records the first error
  // (and leaves `out` as it was). Double takes finite numbers only.
  ObjectReader& String(absl::string_view key, std::string* out);
  ObjectReader& Bool(absl::string_view key, bool* out);
  ObjectReader& Double(absl::string_view key, double* out);
  template <typename T>
  ObjectReader& Integer(absl::string_view key, T* out) {
    const Value* v = Member(key, Value::Kind::kNumber);
    if (v != nullptr && !IntegerOf(*v, out)) Fail(key, "not an integer in range");
    return *this;
  }
  // An array of strings; an object whose every member is an integer (or a
  // string), added to `out`.
  ObjectReader& Strings(absl::string_view key, std::vector<std::string>* out);
  ObjectReader& IntegerMap(absl::string_view key, std::map<std::string, int64_t>* out);
  ObjectReader& StringMap(absl::string_view key, std::map<std::string, std::string>* out);

  // Readers of a member object, and of the objects of a member array, that
  // record their errors here; they must not outlive this reader. Size is
  // the array's length (0 after an error).
  ObjectReader Object(absl::string_view key);
  size_t Size(absl::string_view key);
  ObjectReader Element(absl::string_view key, size_t index);

  // Records an error of the struct's own (a value out of its domain).
  void Fail(absl::string_view key, absl::string_view what);

  bool ok() const { return status_->ok(); }
  const absl::Status& status() const { return *status_; }

 private:
  ObjectReader(const Value& object, std::string path, absl::Status* status);
  // The member if it is of `kind`, else nullptr with the error recorded.
  const Value* Member(absl::string_view key, Value::Kind kind);

  const Value& object_;
  std::string path_;
  absl::Status own_status_;
  absl::Status* status_;  // own_status_, or the outermost reader's
};

}  // namespace rockpool::json

#endif  // ROCKPOOL_TOOLS_JSON_OBJECT_READER_H_
