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
  // The messages are nlohmann-json's; what the runtime promises is "line L, column C: <what is wrong>".
  const Case cases[] = {
      {"", "line 1, column 1: "},
      {"{\"a\": 1,}", "object key"},
      {"{\"a\" 1}", "expected ':'"},
      {"[1 2]", "expected ']'"},
      {"{\"a\": 1, \"a\": 2}", "duplicate key \"a\""},
      {"\"abc", "missing closing quote"},
      {"\"\\q\"", "after backslash"},
      {"\"\\ud800\"", "surrogate"},
      {"01", "line 1, column 2: "},
      {"1.", "invalid number"},
      {"-", "invalid number"},
      {"tru", "invalid literal"},
      {"[1]\n  x", "line 2, column 3: "},
      {"\"a\tb\"", "control character"},
      {"[1] // comment", "line 1, column 5: "},
  };
  for (const Case &c : cases) {
    CAPTURE(c.text);
    JsonParseResult r = parseJson(c.text);
    CHECK_FALSE(r.ok);
    CAPTURE(r.error);
    CHECK(r.error.find(c.message) != std::string::npos);
  }
}

// Issue 12 item 20: names are UTF-8.  A non-ASCII name comes through byte for byte (escaped or not); a
// string that is not valid UTF-8 makes the document invalid JSON instead of being passed on raw.
TEST_CASE("runtime json: non-ASCII strings are kept, invalid UTF-8 is rejected") {
  JsonParseResult r = parseJson("[\"na\xc3\xafve.cake\", \"na\\u00efve.cake\"]");
  REQUIRE(r.ok);
  CHECK(r.value.items[0].string == "na\xc3\xafve.cake");
  CHECK(r.value.items[1].string == "na\xc3\xafve.cake");
  const char *invalid[] = {"\"na\xefve.cake\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "\"\xff\"",
                           "{\"\xc0\xaf\": 1}"};
  for (const char *text : invalid) {
    CAPTURE(text);
    JsonParseResult bad = parseJson(text);
    CHECK_FALSE(bad.ok);
    CHECK(bad.error.find("UTF-8") != std::string::npos);
  }
  // A NUL inside the text is not the end of the document.
  JsonParseResult nul = parseJson(std::string("[1]\0 garbage", 12));
  CHECK_FALSE(nul.ok);
  CHECK(nul.error == "line 1, column 4: NUL byte in the JSON text");
}

TEST_CASE("runtime json: deep nesting is rejected, not a stack overflow") {
  std::string deep(100000, '[');
  JsonParseResult r = parseJson(deep);
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("nesting deeper than") != std::string::npos);
  std::string ok(kMaxJsonDepth, '[');
  ok += std::string(kMaxJsonDepth, ']');
  CHECK(parseJson(ok).ok);
  std::string over = "[" + ok + "]";
  CHECK_FALSE(parseJson(over).ok);
  std::string objects;
  for (int i = 0; i <= kMaxJsonDepth; ++i)
    objects += "{\"a\":";
  objects += "1" + std::string(kMaxJsonDepth + 1, '}');
  JsonParseResult deepObjects = parseJson(objects);
  CHECK_FALSE(deepObjects.ok);
  CHECK(deepObjects.error.find("nesting deeper than") != std::string::npos);
}

TEST_CASE("runtime json: many keys and a duplicate at the end are found quickly") {
  std::string text = "{";
  for (int i = 0; i < 100000; ++i)
    text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  text += "\"k7\": 0}";
  JsonParseResult r = parseJson(text);
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("duplicate key \"k7\"") != std::string::npos);
}
