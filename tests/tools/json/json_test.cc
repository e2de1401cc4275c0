#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/json/json_parse.h"
#include "tools/json/json_value.h"
#include "tools/json/object_reader.h"

namespace rockpool::json {
namespace {

using ::testing::HasSubstr;

std::string RoundTrip(const std::string& text) {
  absl::StatusOr<Value> v = Parse(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status();
  return v.ok() ? ToText(*v) : "";
}

TEST(JsonTest, WritesWhatItReads) {
  EXPECT_EQ(RoundTrip(R"( {"a" : [1, -2.5e3, true, false, null], "b": {"c": "d"}} )"),
            R"({"a":[1,-2.5e3,true,false,null],"b":{"c":"d"}})");
  // Integers of any width keep their text: no detour through double.
  EXPECT_EQ(RoundTrip("[18446744073709551615,-9223372036854775808]"),
            "[18446744073709551615,-9223372036854775808]");
  EXPECT_EQ(RoundTrip("[]"), "[]");
  EXPECT_EQ(RoundTrip("{}"), "{}");
}

// Short containers stay on one line; a long one has a line per member,
// and reads back as the same document.
TEST(JsonTest, IndentedTextWrapsWhatDoesNotFit) {
  const std::string text = R"({"name": "x", "runs": [1, 2, 3], "nested": {"a": [true, null]}})";
  absl::StatusOr<Value> doc = Parse(text);
  ASSERT_TRUE(doc.ok()) << doc.status();
  EXPECT_EQ(ToIndentedText(*doc), text);
  EXPECT_EQ(ToIndentedText(*doc, 40),
            "{\n"
            "  \"name\": \"x\",\n"
            "  \"runs\": [1, 2, 3],\n"
            "  \"nested\": {\"a\": [true, null]}\n"
            "}");
  // Narrower: the member's own line counts its name ("nested": ).
  EXPECT_EQ(ToIndentedText(*doc, 26),
            "{\n"
            "  \"name\": \"x\",\n"
            "  \"runs\": [1, 2, 3],\n"
            "  \"nested\": {\n"
            "    \"a\": [true, null]\n"
            "  }\n"
            "}");
  absl::StatusOr<Value> back = Parse(ToIndentedText(*doc, 1));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ToText(*back), ToText(*doc));
  EXPECT_EQ(ToIndentedText(Value::MakeArray({}), 1), "[]");
  // Wider than the line from its first item: still a line per item.
  EXPECT_EQ(ToIndentedText(Value::MakeArray({Value::Integer(12345)}), 0), "[\n  12345\n]");
}

TEST(JsonTest, StringsKeepTheirBytes) {
  // Escapes, a surrogate pair, and raw bytes that are not UTF-8 (a path).
  absl::StatusOr<Value> v = Parse("\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\xff\"");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->text(), "a\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80\xff");
  absl::StatusOr<Value> back = Parse(ToText(*v));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->text(), v->text());
}

TEST(JsonTest, RefusesWhatIsNotOneValue) {
  for (const char* bad : {"",
                          "  ",
                          "{",
                          "[1,]",
                          "[1 2]",
                          "{\"a\":1,}",
                          "{\"a\" 1}",
                          "{a:1}",
                          "01",
                          "-",
                          "1.",
                          "1e",
                          ".5",
                          "+1",
                          "tru",
                          "nul",
                          "\"abc",
                          "\"\\x\"",
                          "\"\\u12\"",
                          "\"\\ud800\"",
                          "\"\\udc00\"",
                          "\"\\ud800\\u0041\"",
                          "\"a\nb\"",
                          "1 2",
                          "{\"a\":1,\"a\":2}",
                          "[1]x"}) {
    absl::StatusOr<Value> v = Parse(bad);
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument) << "\"" << bad << "\"";
  }
  EXPECT_THAT(Parse("[1,]").status().message(), HasSubstr("at byte 3"));
}

TEST(JsonTest, NestingIsBounded) {
  const std::string deep_ok = std::string(kMaxDepth, '[') + std::string(kMaxDepth, ']');
  EXPECT_TRUE(Parse(deep_ok).ok());
  const std::string too_deep = std::string(kMaxDepth + 1, '[') + std::string(kMaxDepth + 1, ']');
  EXPECT_THAT(Parse(too_deep).status().message(), HasSubstr("nesting too deep"));
  // A hostile depth far beyond the limit fails without exhausting the stack.
  EXPECT_FALSE(Parse(std::string(1 << 20, '[')).ok());
}

TEST(JsonTest, NumbersWrittenFromDoublesReadBackTheSame) {
  for (double d : {0.1, -1e300, 1e-300, 123456789.125}) {
    double back = 0;
    absl::StatusOr<Value> doc = Parse(ToText(Value::MakeObject({{"x", Value::Number(d)}})));
    ASSERT_TRUE(doc.ok()) << doc.status();
    ObjectReader r(*doc, "doc");
    r.Double("x", &back);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(back, d);
  }
  EXPECT_EQ(ToText(Value::Number(1.0 / 0.0)), "null");  // JSON has no infinity
}

TEST(ObjectReaderTest, ReadsMembersAndNamesTheFirstBadOne) {
  absl::StatusOr<Value> doc = Parse(R"({"n": 7, "s": "x", "b": true, "list": ["p", "q"],
      "m": {"k": -3}, "items": [{"v": 1}, {"v": 300}]})");
  ASSERT_TRUE(doc.ok()) << doc.status();
  ObjectReader r(*doc, "doc");
  int n = 0;
  std::string s;
  bool b = false;
  std::vector<std::string> list;
  std::map<std::string, int64_t> m;
  r.Integer("n", &n).String("s", &s).Bool("b", &b).Strings("list", &list).IntegerMap("m", &m);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(n, 7);
  EXPECT_EQ(s, "x");
  EXPECT_TRUE(b);
  EXPECT_EQ(list, (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(m, (std::map<std::string, int64_t>{{"k", -3}}));
  ASSERT_EQ(r.Size("items"), 2u);
  uint8_t v = 0;
  r.Element("items", 0).Integer("v", &v);
  EXPECT_EQ(v, 1);
  r.Element("items", 1).Integer("v", &v);  // 300 does not fit a uint8_t
  EXPECT_EQ(r.status().message(), "doc.items[1].v: not an integer in range");
  EXPECT_EQ(v, 1);    // left as it was
  r.String("n", &s);  // the first error stays
  EXPECT_EQ(r.status().message(), "doc.items[1].v: not an integer in range");
}

TEST(ObjectReaderTest, MissingWrongKindAndOutOfRange) {
  const Value doc = *Parse(R"({"neg": -1, "frac": 1.5, "s": 1, "o": []})");
  uint64_t u = 0;
  int64_t i = 0;
  std::string s;
  EXPECT_EQ(ObjectReader(doc, "d").Integer("neg", &u).status().message(),
            "d.neg: not an integer in range");
  EXPECT_EQ(ObjectReader(doc, "d").Integer("frac", &i).status().message(),
            "d.frac: not an integer in range");
  EXPECT_EQ(ObjectReader(doc, "d").String("s", &s).status().message(), "d.s: not a string");
  EXPECT_EQ(ObjectReader(doc, "d").String("gone", &s).status().message(), "d.gone: missing");
  ObjectReader o(doc, "d");
  o.Object("o").Integer("x", &i);
  EXPECT_EQ(o.status().message(), "d.o: not an object");
  EXPECT_EQ(ObjectReader(*Parse("[1]"), "top").status().message(), "top: not an object");
}

}  // namespace
}  // namespace rockpool::json
