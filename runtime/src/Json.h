// The JSON reader for launch manifests (and the cost model's machine files), on nlohmann-json.
//
// Parses RFC 8259 text (strings must be valid UTF-8) into a tree of JsonValue.  Numbers that are written without a
// fraction or exponent and fit in int64 are kept exact as integers; others become doubles.  Objects keep
// their members in file order.  Nesting deeper than kMaxJsonDepth is rejected (no stack overflow on hostile
// input), as are duplicate keys, trailing garbage and invalid escapes.  Errors carry line:column.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cake::rt {

constexpr int kMaxJsonDepth = 64;

enum class JsonType { Null, Bool, Int, Double, String, Array, Object };

struct JsonValue {
  JsonType type = JsonType::Null;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0.0;
  std::string string;
  std::vector<JsonValue> items;    // Array elements, or Object member values in file order
  std::vector<std::string> keys;   // Object member keys (keys[i] names items[i])

  bool isNull() const { return type == JsonType::Null; }
  bool isInt() const { return type == JsonType::Int; }
  bool isString() const { return type == JsonType::String; }
  bool isArray() const { return type == JsonType::Array; }
  bool isObject() const { return type == JsonType::Object; }
  bool isBool() const { return type == JsonType::Bool; }
  // Member lookup for objects; nullptr when absent (or when this is not an object).
  const JsonValue *find(std::string_view key) const;
};

std::string_view jsonTypeName(JsonType type);

struct JsonParseResult {
  bool ok = false;
  JsonValue value;
  std::string error; // "line 3, column 7: expected ':' after object key"
};

JsonParseResult parseJson(std::string_view text);

} // namespace cake::rt
