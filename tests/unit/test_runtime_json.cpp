// Runtime: the manifest's JSON reader.
#include "Json.h"

#include <doctest/doctest.h>

#include <string>

using namespace cake::rt;

TEST_CASE("runtime json: values of every type, members in file order") {
  JsonParseResult r = parseJson(R"( {"b": [1, -2, 3.5, 1e3, true, false, null], "a": "x\"\n\u00e9\ud83d\ude00"} )");
  REQUIRE(r.ok);
  REQUIRE(r.value.isObject());
  REQUIRE(r.value.keys.size() == 2);
  CHECK(r.value.keys[0] == "b");
  CHECK(r.value.keys[1] == "a");
  const JsonValue *b = r.value.find("b");
  REQUIRE(b);
  REQUIRE(b->items.size() == 7);
  CHECK(b->items[0].isInt());
  CHECK(b->items[0].integer == 1);
  CHECK(b->items[1].integer == -2);
  CHECK(b->items[2].type == JsonType::Double);
  CHECK(b->items[2].number == 3.5);
  CHECK(b->items[3].type == JsonType::Double);
  CHECK(b->items[3].number == 1000.0);
  CHECK(b->items[4].boolean);
  CHECK_FALSE(b->items[5].boolean);
  CHECK(b->items[6].isNull());
  CHECK(r.value.find("a")->string == "x\"\n\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(r.value.find("missing") == nullptr);
}

TEST_CASE("runtime json: large integers stay exact, beyond int64 become doubles") {
  JsonParseResult r = parseJson("[9223372036854775807, -9223372036854775808, 9223372036854775808]");
  REQUIRE(r.ok);
  CHECK(r.value.items[0].integer == INT64_MAX);
  CHECK(r.value.items[1].integer == INT64_MIN);
  CHECK(r.value.items[2].type == JsonType::Double);
}

TEST_CASE("runtime json: malformed input is an error with line and column") {
  struct Case {
    const char *text;
    const char *message;
  };
  const Case cases[] = {
      {"", "unexpected end of input"},
      {"{\"a\": 1,}", "expected a string key"},
      {"{\"a\" 1}", "expected ':'"},
      {"[1 2]", "expected ']' or ','"},
      {"{\"a\": 1, \"a\": 2}", "duplicate key \"a\""},
      {"\"abc", "unterminated string"},
      {"\"\\q\"", "invalid escape"},
      {"\"\\ud800\"", "unpaired surrogate"},
      {"01", "unexpected text after the JSON value"},
      {"1.", "digits expected after '.'"},
      {"-", "invalid number"},
      {"tru", "unexpected character 't'"},
      {"[1]\n  x", "line 2, column 3"},
      {"\"a\tb\"", "control character"},
  };
  for (const Case &c : cases) {
    CAPTURE(c.text);
    JsonParseResult r = parseJson(c.text);
    CHECK_FALSE(r.ok);
    CHECK(r.error.find(c.message) != std::string::npos);
  }
}

TEST_CASE("runtime json: deep nesting is rejected, not a stack overflow") {
  std::string deep(100000, '[');
  JsonParseResult r = parseJson(deep);
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("nesting deeper than") != std::string::npos);
  std::string ok(kMaxJsonDepth, '[');
  ok += std::string(kMaxJsonDepth, ']');
  CHECK(parseJson(ok).ok);
}
