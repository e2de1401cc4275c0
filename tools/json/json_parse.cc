#include "tools/json/json_parse.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace rockpool::json {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text) {}

  absl::StatusOr<Value> Document() {
    Value v;
    if (!ReadValue(0, &v)) return Error();
    SkipSpace();
    if (at_ != text_.size()) {
      Fail("text after the value");
      return Error();
    }
    return v;
  }

 private:
  bool Done() const { return at_ >= text_.size(); }
  char Peek() const { return Done() ? '\0' : text_[at_]; }

  void SkipSpace() {
    while (!Done() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r')) ++at_;
  }

  bool Expect(char c) {
    if (Peek() != c) return Fail(absl::StrCat("expected '", std::string(1, c), "'"));
    ++at_;
    return true;
  }

  bool Literal(absl::string_view word) {
    if (text_.substr(at_, word.size()) != word) return Fail("unknown literal");
    at_ += word.size();
    return true;
  }

  bool Fail(absl::string_view what) {
    if (error_.empty()) error_ = absl::StrCat(what, " at byte ", at_);
    return false;
  }

  absl::Status Error() const { return absl::InvalidArgumentError(absl::StrCat("JSON: ", error_)); }

  bool ReadValue(size_t depth, Value* out) {
    SkipSpace();
    switch (Peek()) {
      case '{':
        return ReadObject(depth + 1, out);
      case '[':
        return ReadArray(depth + 1, out);
      case '"': {
        std::string s;
        if (!ReadString(&s)) return false;
        *out = Value::String(std::move(s));
        return true;
      }
      case 't':
        *out = Value::Bool(true);
        return Literal("true");
      case 'f':
        *out = Value::Bool(false);
        return Literal("false");
      case 'n':
        *out = Value();
        return Literal("null");
      default:
        return ReadNumber(out);
    }
  }

  bool ReadArray(size_t depth, Value* out) {
    if (depth > kMaxDepth) return Fail("nesting too deep");
    ++at_;  // '['
    Value::Array items;
    SkipSpace();
    if (Peek() == ']') {
      ++at_;
      *out = Value::MakeArray(std::move(items));
      return true;
    }
    while (true) {
      items.emplace_back();
      if (!ReadValue(depth, &items.back())) return false;
      SkipSpace();
      if (Peek() == ']') break;
      if (!Expect(',')) return false;
    }
    ++at_;
    *out = Value::MakeArray(std::move(items));
    return true;
  }

  bool ReadObject(size_t depth, Value* out) {
    if (depth > kMaxDepth) return Fail("nesting too deep");
    ++at_;  // '{'
    Value::Members members;
    SkipSpace();
    if (Peek() == '}') {
      ++at_;
      *out = Value::MakeObject(std::move(members));
      return true;
    }
    while (true) {
      SkipSpace();
      std::string name;
      if (Peek() != '"') return Fail("expected a member name");
      if (!ReadString(&name)) return false;
      for (const auto& member : members) {
        if (member.first == name) return Fail(absl::StrCat("member \"", name, "\" named twice"));
      }
      SkipSpace();
      if (!Expect(':')) return false;
      members.emplace_back(std::move(name), Value());
      if (!ReadValue(depth, &members.back().second)) return false;
      SkipSpace();
      if (Peek() == '}') break;
      if (!Expect(',')) return false;
    }
    ++at_;
    *out = Value::MakeObject(std::move(members));
    return true;
  }

  // Four hex digits after "\u".
  bool ReadHex4(uint32_t* out) {
    if (text_.size() - at_ < 4) return Fail("short \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[at_++];
      v <<= 4;
      if (IsDigit(c)) {
        v |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return Fail("bad hex digit in \\u escape");
      }
    }
    *out = v;
    return true;
  }

  // A \u escape (the "\u" already read), surrogate pairs joined, as UTF-8.
  bool ReadCodePoint(std::string* out) {
    uint32_t cp = 0;
    if (!ReadHex4(&cp)) return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return Fail("lone low surrogate");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t low = 0;
      if (text_.substr(at_, 2) != "\\u") return Fail("lone high surrogate");
      at_ += 2;
      if (!ReadHex4(&low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) return Fail("lone high surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xC0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xE0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (cp >> 18));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return true;
  }

  bool ReadString(std::string* out) {
    ++at_;  // '"'
    while (true) {
      if (Done()) return Fail("unterminated string");
      const char c = text_[at_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return Fail("unescaped control byte in string");
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (Done()) return Fail("unterminated string");
      const char e = text_[at_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          *out += e;
          break;
        case 'b':
          *out += '\b';
          break;
        case 'f':
          *out += '\f';
          break;
        case 'n':
          *out += '\n';
          break;
        case 'r':
          *out += '\r';
          break;
        case 't':
          *out += '\t';
          break;
        case 'u':
          if (!ReadCodePoint(out)) return false;
          break;
        default:
          --at_;
          return Fail("unknown escape");
      }
    }
  }

  // -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  bool ReadNumber(Value* out) {
    const size_t start = at_;
    if (Peek() == '-') ++at_;
    if (Peek() == '0') {
      ++at_;
    } else if (IsDigit(Peek())) {
      while (IsDigit(Peek())) ++at_;
    } else {
      return Fail("expected a value");
    }
    if (Peek() == '.') {
      ++at_;
      if (!IsDigit(Peek())) return Fail("expected a digit after '.'");
      while (IsDigit(Peek())) ++at_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++at_;
      if (Peek() == '+' || Peek() == '-') ++at_;
      if (!IsDigit(Peek())) return Fail("expected an exponent");
      while (IsDigit(Peek())) ++at_;
    }
    *out = Value::NumberLiteral(std::string(text_.substr(start, at_ - start)));
    return true;
  }

  absl::string_view text_;
  size_t at_ = 0;
  std::string error_;
};

}  // namespace

absl::StatusOr<Value> Parse(absl::string_view text) { return Parser(text).Document(); }

}  // namespace rockpool::json
