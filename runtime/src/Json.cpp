// JSON reader: one recursive-descent function per grammar rule of RFC 8259, with a depth guard.
#include "Json.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

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

struct JsonSyntaxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class JsonReader {
public:
  explicit JsonReader(std::string_view text) : text_(text) {}

  JsonValue readDocument() {
    skipSpace();
    JsonValue value = readValue(0);
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected text after the JSON value");
    return value;
  }

  std::string where() const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
  }

private:
  [[noreturn]] void fail(const std::string &message) { throw JsonSyntaxError(where() + ": " + message); }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  void skipSpace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      ++pos_;
  }

  void expect(char c, const char *context) {
    if (peek() != c)
      fail(std::string("expected '") + c + "' " + context);
    ++pos_;
  }

  // value = object | array | string | number | 'true' | 'false' | 'null'
  JsonValue readValue(int depth) {
    if (depth > kMaxJsonDepth)
      fail("nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    JsonValue value;
    char c = peek();
    if (c == '{') {
      readObject(value, depth);
    } else if (c == '[') {
      readArray(value, depth);
    } else if (c == '"') {
      value.type = JsonType::String;
      value.string = readString();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      readNumber(value);
    } else if (readKeyword("true")) {
      value.type = JsonType::Bool;
      value.boolean = true;
    } else if (readKeyword("false")) {
      value.type = JsonType::Bool;
    } else if (readKeyword("null")) {
      value.type = JsonType::Null;
    } else if (atEnd()) {
      fail("unexpected end of input, expected a value");
    } else {
      fail(std::string("unexpected character '") + c + "', expected a value");
    }
    return value;
  }

  bool readKeyword(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return false;
    pos_ += word.size();
    return true;
  }

  // object = '{' [ string ':' value { ',' string ':' value } ] '}'
  void readObject(JsonValue &value, int depth) {
    value.type = JsonType::Object;
    ++pos_;
    skipSpace();
    if (peek() == '}') {
      ++pos_;
      return;
    }
    for (;;) {
      skipSpace();
      if (peek() != '"')
        fail("expected a string key in object");
      std::string key = readString();
      if (value.find(key))
        fail("duplicate key \"" + key + "\"");
      skipSpace();
      expect(':', "after object key");
      skipSpace();
      JsonValue member = readValue(depth + 1);
      value.keys.push_back(std::move(key));
      value.items.push_back(std::move(member));
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}', "or ',' in object");
      return;
    }
  }

  // array = '[' [ value { ',' value } ] ']'
  void readArray(JsonValue &value, int depth) {
    value.type = JsonType::Array;
    ++pos_;
    skipSpace();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    for (;;) {
      skipSpace();
      value.items.push_back(readValue(depth + 1));
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']', "or ',' in array");
      return;
    }
  }

  unsigned readHex4() {
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = peek();
      unsigned digit;
      if (c >= '0' && c <= '9')
        digit = c - '0';
      else if (c >= 'a' && c <= 'f')
        digit = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        digit = c - 'A' + 10;
      else
        fail("invalid \\u escape");
      code = code * 16 + digit;
      ++pos_;
    }
    return code;
  }

  static void appendUtf8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  // string = '"' { char | escape } '"'
  std::string readString() {
    ++pos_; // opening quote
    std::string out;
    for (;;) {
      if (atEnd())
        fail("unterminated string");
      char c = text_[pos_++];
      if (c == '"')
        return out;
      if (static_cast<unsigned char>(c) < 0x20)
        fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (atEnd())
        fail("unterminated string");
      char e = text_[pos_++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        unsigned code = readHex4();
        if (code >= 0xD800 && code <= 0xDBFF) {
          if (!readKeyword("\\u"))
            fail("unpaired surrogate in \\u escape");
          unsigned low = readHex4();
          if (low < 0xDC00 || low > 0xDFFF)
            fail("unpaired surrogate in \\u escape");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code <= 0xDFFF) {
          fail("unpaired surrogate in \\u escape");
        }
        appendUtf8(out, code);
        break;
      }
      default: fail(std::string("invalid escape '\\") + e + "'");
      }
    }
  }

  // number = [ '-' ] int [ frac ] [ exp ]
  void readNumber(JsonValue &value) {
    size_t start = pos_;
    bool isInteger = true;
    if (peek() == '-')
      ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    } else {
      fail("invalid number");
    }
    if (peek() == '.') {
      isInteger = false;
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9'))
        fail("invalid number: digits expected after '.'");
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      isInteger = false;
      ++pos_;
      if (peek() == '+' || peek() == '-')
        ++pos_;
      if (!(peek() >= '0' && peek() <= '9'))
        fail("invalid number: digits expected in exponent");
      while (peek() >= '0' && peek() <= '9')
        ++pos_;
    }
    std::string spelling(text_.substr(start, pos_ - start));
    errno = 0;
    if (isInteger) {
      long long parsed = std::strtoll(spelling.c_str(), nullptr, 10);
      if (errno == 0) {
        value.type = JsonType::Int;
        value.integer = parsed;
        value.number = static_cast<double>(parsed);
        return;
      }
      errno = 0; // out of int64 range: keep as a double
    }
    value.type = JsonType::Double;
    value.number = std::strtod(spelling.c_str(), nullptr);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

} // namespace

JsonParseResult parseJson(std::string_view text) {
  JsonParseResult result;
  JsonReader reader(text);
  try {
    result.value = reader.readDocument();
    result.ok = true;
  } catch (const JsonSyntaxError &e) {
    result.error = e.what();
  }
  return result;
}

} // namespace cake::rt
