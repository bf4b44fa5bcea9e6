// RuleSet loader: JSON text -> RuleSet, every problem a located user error in the rules file.
//
// How: nlohmann::json parses the text (a parse_error carries the byte where it stopped: E0626 there).  The
// parsed value has no positions, so a small scanner (indexOffsets) walks the same, now known-valid, text once
// and records the byte range of every value under its JSON pointer ("/rules/0/op/1"); a semantic problem
// (E0627) is reported at the range of the offending value, or of the enclosing rule when the value is missing.
#include "verify/RuleSet.h"

#include <nlohmann/json.hpp>

#include <map>

namespace cake {

namespace {

struct OpKindEntry {
  RuleOp op;
  std::string_view spelling;
  bool buffered;
};

constexpr OpKindEntry kOpKinds[] = {
#define RULE_OP(Id, Spelling, Buffered, Matches) {RuleOp::Id, Spelling, Buffered},
#include "verify/RuleOpKinds.def"
#undef RULE_OP
};

// ---- byte ranges of the values of a valid JSON text, by JSON pointer
class OffsetIndexer {
public:
  explicit OffsetIndexer(std::string_view text) : t_(text) {}
  std::map<std::string, std::pair<uint32_t, uint32_t>> run() {
    value("");
    return std::move(index_);
  }

private:
  void ws() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t')) ++p_;
  }
  std::string string() {   // at '"'; returns the raw contents (escapes kept: keys of rules are plain ASCII)
    size_t start = ++p_;
    while (p_ < t_.size() && t_[p_] != '"') p_ += t_[p_] == '\\' ? 2 : 1;
    std::string s(t_.substr(start, p_ - start));
    ++p_;
    return s;
  }
  void value(const std::string &ptr) {
    ws();
    size_t begin = p_;
    if (p_ >= t_.size()) return;
    char c = t_[p_];
    if (c == '{') {
      ++p_;
      ws();
      while (p_ < t_.size() && t_[p_] != '}') {
        std::string key = string();
        ws();
        ++p_;   // ':'
        value(ptr + "/" + key);
        ws();
        if (p_ < t_.size() && t_[p_] == ',') ++p_;
        ws();
      }
      ++p_;
    } else if (c == '[') {
      ++p_;
      ws();
      for (size_t i = 0; p_ < t_.size() && t_[p_] != ']'; ++i) {
        value(ptr + "/" + std::to_string(i));
        ws();
        if (p_ < t_.size() && t_[p_] == ',') ++p_;
        ws();
      }
      ++p_;
    } else if (c == '"') {
      string();
    } else {
      while (p_ < t_.size() && t_[p_] != ',' && t_[p_] != '}' && t_[p_] != ']' && t_[p_] != ' ' && t_[p_] != '\n' &&
             t_[p_] != '\r' && t_[p_] != '\t')
        ++p_;
    }
    index_[ptr] = {static_cast<uint32_t>(begin), static_cast<uint32_t>(p_)};
  }
  std::string_view t_;
  size_t p_ = 0;
  std::map<std::string, std::pair<uint32_t, uint32_t>> index_;
};

class Loader {
public:
  Loader(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags)
      : sources_(sources), file_(file), diags_(diags) {}

  std::optional<RuleSet> load() {
    std::string_view text = sources_.text(file_);
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error &e) {
      uint32_t at = e.byte == 0 ? 0 : static_cast<uint32_t>(std::min<size_t>(e.byte - 1, text.size()));
      std::string what = e.what();
      // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error while parsing ..."
      if (auto colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
      diags_.report(DiagKind::RulesFileSyntax, range(at, at + 1), what);
      return std::nullopt;
    }
    index_ = OffsetIndexer(text).run();
    RuleSet set;
    if (!doc.is_object() || !doc.contains("rules") || !doc["rules"].is_array()) {
      error("", "the file must be an object {\"rules\": [ ... ]}");
      return std::nullopt;
    }
    for (auto it = doc.items().begin(); it != doc.items().end(); ++it)
      if (it.key() != "rules" && it.key() != "comment")
        error("/" + it.key(), "unknown field '" + it.key() + "' (a rules file has 'rules' and 'comment')");
    const auto &rules = doc["rules"];
    for (size_t i = 0; i < rules.size(); ++i) {
      if (auto r = rule(rules[i], "/rules/" + std::to_string(i))) set.rules.push_back(std::move(*r));
    }
    if (failed_) return std::nullopt;
    return set;
  }

private:
  SourceRange range(uint32_t b, uint32_t e) { return SourceRange{SourceLoc{file_, b}, e}; }
  SourceRange at(const std::string &ptr) {
    for (std::string p = ptr;; p = p.substr(0, p.rfind('/'))) {
      if (auto it = index_.find(p); it != index_.end()) return range(it->second.first, it->second.second);
      if (p.empty()) return range(0, 0);
    }
  }
  void error(const std::string &ptr, const std::string &what) {
    failed_ = true;
    diags_.report(DiagKind::RuleInvalid, at(ptr), what);
  }

  std::optional<std::string> text(const nlohmann::json &r, const std::string &ptr, const char *key, bool required) {
    if (!r.contains(key)) {
      if (required) error(ptr, std::string("the rule has no '") + key + "'");
      return std::nullopt;
    }
    if (!r[key].is_string() || r[key].get<std::string>().empty()) {
      error(ptr + "/" + key, std::string("'") + key + "' must be a non-empty string");
      return std::nullopt;
    }
    return r[key].get<std::string>();
  }
  // A string or an array of strings.
  std::vector<std::string> strings(const nlohmann::json &r, const std::string &ptr, const char *key) {
    std::vector<std::string> out;
    if (!r.contains(key)) return out;
    const auto &v = r[key];
    if (v.is_string()) return {v.get<std::string>()};
    if (!v.is_array()) {
      error(ptr + "/" + key, std::string("'") + key + "' must be a string or an array of strings");
      return out;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) error(ptr + "/" + key + "/" + std::to_string(i), "expected a string");
      else out.push_back(v[i].get<std::string>());
    }
    return out;
  }
  std::vector<RuleOp> ops(const nlohmann::json &r, const std::string &ptr, const char *key, bool required) {
    std::vector<RuleOp> out;
    if (!r.contains(key)) {
      if (required) error(ptr, std::string("the rule has no '") + key + "'");
      return out;
    }
    std::vector<std::string> names = strings(r, ptr, key);
    const bool single = r[key].is_string();
    for (size_t i = 0; i < names.size(); ++i) {
      if (auto op = ruleOpBySpelling(names[i])) {
        out.push_back(*op);
        continue;
      }
      std::string known;
      for (const OpKindEntry &e : kOpKinds) known += (known.empty() ? "" : ", ") + std::string(e.spelling);
      error(ptr + "/" + key + (single ? "" : "/" + std::to_string(i)),
            "unknown operation kind '" + names[i] + "' (known: " + known + ")");
    }
    if (required && r[key].is_array() && r[key].empty()) error(ptr + "/" + key, std::string("'") + key + "' is empty");
    return out;
  }

  std::optional<Rule> rule(const nlohmann::json &r, const std::string &ptr) {
    if (!r.is_object()) {
      error(ptr, "a rule must be an object with 'name', 'message', 'op' and 'after'");
      return std::nullopt;
    }
    static const char *const kFields[] = {"name", "message", "op", "after", "reset", "paths", "buffers", "roles",
                                          "scope", "comment"};
    for (auto it = r.items().begin(); it != r.items().end(); ++it) {
      bool known = false;
      for (const char *f : kFields) known = known || it.key() == f;
      if (!known)
        error(ptr + "/" + it.key(), "unknown field '" + it.key() +
                                        "' (a rule has name, message, op, after, reset, paths, scope, buffers, roles, comment)");
    }
    bool before = failed_;
    failed_ = false;
    Rule rule;
    rule.where = at(ptr + "/name");
    if (auto n = text(r, ptr, "name", true)) rule.name = *n;
    if (auto m = text(r, ptr, "message", true)) rule.message = *m;
    rule.op = ops(r, ptr, "op", true);
    rule.after = ops(r, ptr, "after", true);
    rule.reset = ops(r, ptr, "reset", false);
    if (auto p = text(r, ptr, "paths", false)) {
      if (*p == "all") rule.allPaths = true;
      else if (*p == "some") rule.allPaths = false;
      else error(ptr + "/paths", "'paths' is \"all\" or \"some\", not \"" + *p + "\"");
    }
    if (auto sc = text(r, ptr, "scope", false)) {
      if (*sc == "role") rule.kernelScope = false;
      else if (*sc == "kernel") rule.kernelScope = true;
      else error(ptr + "/scope", "'scope' is \"role\" or \"kernel\", not \"" + *sc + "\"");
    }
    rule.buffers = strings(r, ptr, "buffers");
    rule.roles = strings(r, ptr, "roles");
    bool bad = failed_;
    failed_ = before || bad;
    if (bad) return std::nullopt;
    return rule;
  }

  const SourceManager &sources_;
  uint32_t file_;
  DiagnosticEngine &diags_;
  std::map<std::string, std::pair<uint32_t, uint32_t>> index_;
  bool failed_ = false;
};

} // namespace

std::string_view ruleOpSpelling(RuleOp op) { return kOpKinds[static_cast<size_t>(op)].spelling; }
bool ruleOpBuffered(RuleOp op) { return kOpKinds[static_cast<size_t>(op)].buffered; }
std::optional<RuleOp> ruleOpBySpelling(std::string_view spelling) {
  for (const OpKindEntry &e : kOpKinds)
    if (e.spelling == spelling) return e.op;
  return std::nullopt;
}

std::optional<RuleSet> loadRules(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags) {
  return Loader(sources, file, diags).load();
}

} // namespace cake
