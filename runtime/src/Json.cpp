// JSON reader on nlohmann-json's SAX parser.  nlohmann checks the syntax (RFC 8259, UTF-8 validity of every
// string, no trailing text, no comments) without recursion; the handler below builds the JsonValue tree,
// keeping members in file order, integers exact when they fit in int64, and rejecting what the library
// accepts but a manifest must not have: nesting deeper than kMaxJsonDepth and duplicate keys.
#include "Json.h"

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cake::rt {

const JsonValue *JsonValue::find(std::string_view key) const {
  if (type != JsonType::Object)
    return nullptr;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key)
      return &items[i];
  return nullptr;
}

std::string_view jsonTypeName(JsonType type) {
  switch (type) {
  case JsonType::Null: return "null";
  case JsonType::Bool: return "boolean";
  case JsonType::Int: return "integer";
  case JsonType::Double: return "number";
  case JsonType::String: return "string";
  case JsonType::Array: return "array";
  case JsonType::Object: return "object";
  }
  return "value";
}

namespace {

// "line 3, column 7" of byte offset `offset` (1-based; columns count bytes).
std::string lineColumn(std::string_view text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1, column 2: " prefix
// (the position is computed here from the byte offset, the same way for every error).
std::string stripPrefix(const std::string &what) {
  size_t column = what.find("column ");
  size_t colon = what.find(": ", column == std::string::npos ? 0 : column);
  if (colon == std::string::npos)
    return what;
  return what.substr(colon + 2);
}

class TreeBuilder {
public:
  using json = nlohmann::json;
  explicit TreeBuilder(std::string_view text) : text_(text) {}

  bool null() { return add(JsonValue{}); }
  bool boolean(bool value) {
    JsonValue v;
    v.type = JsonType::Bool;
    v.boolean = value;
    return add(std::move(v));
  }
  bool number_integer(json::number_integer_t value) { return addInt(value); }
  bool number_unsigned(json::number_unsigned_t value) {
    if (value <= static_cast<json::number_unsigned_t>(INT64_MAX))
      return addInt(static_cast<int64_t>(value));
    return addDouble(static_cast<double>(value));
  }
  bool number_float(json::number_float_t value, const json::string_t &) { return addDouble(value); }
  bool string(json::string_t &value) {
    JsonValue v;
    v.type = JsonType::String;
    v.string = std::move(value);
    return add(std::move(v));
  }
  bool binary(json::binary_t &) { return fail("binary values are not JSON"); }

  bool start_object(std::size_t) { return open(JsonType::Object); }
  bool key(json::string_t &name) {
    Level &level = stack_.back();
    if (!level.seen.insert(name).second)
      return fail("duplicate key \"" + name + "\"");
    level.value.keys.push_back(std::move(name));
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(JsonType::Array); }
  bool end_array() { return close(); }

  bool parse_error(std::size_t position, const std::string &, const nlohmann::detail::exception &error) {
    // The byte offset nlohmann reports is one past the offending character.
    error_ = lineColumn(text_, position == 0 ? 0 : position - 1) + ": " + stripPrefix(error.what());
    return false;
  }

  const std::string &error() const { return error_; }
  JsonValue takeResult() { return std::move(result_); }

private:
  struct Level {
    JsonValue value;
    std::set<std::string> seen; // keys of an object so far (duplicate check in O(log n))
  };

  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  bool addInt(int64_t value) {
    JsonValue v;
    v.type = JsonType::Int;
    v.integer = value;
    v.number = static_cast<double>(value);
    return add(std::move(v));
  }
  bool addDouble(double value) {
    JsonValue v;
    v.type = JsonType::Double;
    v.number = value;
    return add(std::move(v));
  }

  bool add(JsonValue value) {
    if (stack_.empty())
      result_ = std::move(value);
    else
      stack_.back().value.items.push_back(std::move(value));
    return true;
  }

  bool open(JsonType type) {
    if (stack_.size() >= static_cast<size_t>(kMaxJsonDepth))
      return fail("nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    stack_.emplace_back();
    stack_.back().value.type = type;
    return true;
  }

  bool close() {
    JsonValue done = std::move(stack_.back().value);
    stack_.pop_back();
    return add(std::move(done));
  }

  std::string_view text_;
  std::vector<Level> stack_;
  JsonValue result_;
  std::string error_;
};

} // namespace

JsonParseResult parseJson(std::string_view text) {
  JsonParseResult result;
  // nlohmann's lexer takes a NUL byte for the end of the input and would ignore what follows it; JSON text
  // has no place for one (inside a string it would be an unescaped control character).
  if (size_t nul = text.find('\0'); nul != std::string_view::npos) {
    result.error = lineColumn(text, nul) + ": NUL byte in the JSON text";
    return result;
  }
  TreeBuilder builder(text);
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(text.data(), text.data() + text.size(), &builder);
  } catch (const nlohmann::json::exception &e) {
    result.error = stripPrefix(e.what());
    return result;
  }
  if (!ok) {
    result.error = builder.error().empty() ? "invalid JSON" : builder.error();
    return result;
  }
  result.ok = true;
  result.value = builder.takeResult();
  return result;
}

} // namespace cake::rt
