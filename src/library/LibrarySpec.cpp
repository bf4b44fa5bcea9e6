// Reading a library build spec (see LibrarySpec.h).  The JSON goes through the runtime's reader
// (runtime/src/Json.cpp on nlohmann-json, also used for manifests and machine files); every structural
// problem is reported, not only the first, so one run shows everything to fix.
#include "library/LibrarySpec.h"

#include "Json.h"
#include "support/SourceManager.h"

#include <algorithm>
#include <regex>

namespace cake::library {

namespace {

using rt::JsonType;
using rt::JsonValue;

// Offsets of `"key"` used as an object key (followed by ':') at or after `from`.
std::vector<uint32_t> keyOffsets(std::string_view text, std::string_view key, size_t from) {
  std::vector<uint32_t> out;
  std::string quoted = "\"" + std::string(key) + "\"";
  for (size_t at = text.find(quoted, from); at != std::string_view::npos; at = text.find(quoted, at + 1)) {
    size_t p = at + quoted.size();
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t' || text[p] == '\n' || text[p] == '\r')) ++p;
    if (p < text.size() && text[p] == ':') out.push_back(static_cast<uint32_t>(at));
  }
  return out;
}

// The range of the value after the key at `keyAt` (a string with its quotes, or the next token).
SourceRange valueRange(uint32_t file, std::string_view text, uint32_t keyAt) {
  size_t p = text.find(':', keyAt);
  if (p == std::string_view::npos) return {{file, keyAt}, keyAt + 1};
  ++p;
  while (p < text.size() && (text[p] == ' ' || text[p] == '\t' || text[p] == '\n' || text[p] == '\r')) ++p;
  size_t end = p + 1;
  if (p < text.size() && text[p] == '"') {
    while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
    end = std::min(end + 1, text.size());
  } else {
    while (end < text.size() && text[end] != ',' && text[end] != '}' && text[end] != ']' && text[end] != '\n') ++end;
  }
  return {{file, static_cast<uint32_t>(p)}, static_cast<uint32_t>(end)};
}

class SpecReader {
public:
  SpecReader(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags)
      : text_(sources.text(file)), file_(file), diags_(diags) {
    whole_ = {{file_, 0}, static_cast<uint32_t>(std::min<size_t>(text_.size(), 1))};
  }

  std::optional<LibrarySpec> read(std::string path) {
    rt::JsonParseResult parsed = rt::parseJson(text_);
    if (!parsed.ok) {
      diags_.report(DiagKind::LibrarySpecMalformed, at(parsed.error), "invalid JSON: " + parsed.error);
      return std::nullopt;
    }
    const JsonValue &root = parsed.value;
    if (!root.isObject()) {
      diags_.report(DiagKind::LibrarySpecMalformed, whole_, "the spec is a JSON object");
      return std::nullopt;
    }
    LibrarySpec spec;
    spec.path = std::move(path);
    checkKeys(root, "",
              {"format", "version", "name", "shape_vars", "domain", "targets", "table_check_ms", "variants", "dispatch"});
    const JsonValue *format = root.find("format");
    if (!format || !format->isString() || format->string != "cake-library-spec")
      malformed("format", "\"format\" must be \"cake-library-spec\"");
    const JsonValue *version = root.find("version");
    if (!version || !version->isInt() || version->integer != 1)
      malformed("version", "\"version\" must be 1 (the version this cakec reads)");
    spec.name = string(root, "name", true);
    if (!spec.name.empty() && !std::regex_match(spec.name, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
      malformed("name", "the library name '" + spec.name + "' is not a name (letters, digits, _)");
    for (const JsonValue &v : array(root, "shape_vars")) {
      if (!v.isString() || !std::regex_match(v.string, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
        malformed("shape_vars", "\"shape_vars\" lists names");
      else
        spec.shapeVars.push_back(v.string);
    }
    for (const JsonValue &v : array(root, "targets")) {
      if (!v.isString() || !std::regex_match(v.string, std::regex("sm_[0-9]{2,3}[af]?")))
        malformed("targets", "\"targets\" lists archs such as \"sm_90a\"");
      else
        spec.targets.push_back(v.string);
    }
    if (const JsonValue *ms = root.find("table_check_ms")) {
      if (!ms->isInt() || ms->integer < 1000 || ms->integer > 600000)
        malformed("table_check_ms", "\"table_check_ms\" is the solver's milliseconds per table query, 1000..600000");
      else
        spec.tableCheckMs = static_cast<unsigned>(ms->integer);
    }
    if (const JsonValue *domain = root.find("domain")) {
      spec.domainRange = rangeOfKey("domain", 0, 0);
      if (!domain->isString())
        malformed("domain", "\"domain\" is an expression string");
      else
        spec.domain = expression(domain->string, spec.domainRange, "domain");
    }
    readVariants(root, spec);
    readDispatch(root, spec);
    if (diags_.hasErrors()) return std::nullopt;
    return spec;
  }

private:
  SourceRange at(const std::string &jsonError) {
    // "line 3, column 7: ..." -> that position
    std::smatch m;
    std::string e = jsonError;
    if (std::regex_search(e, m, std::regex("line ([0-9]+), column ([0-9]+)"))) {
      size_t line = std::stoul(m[1]), column = std::stoul(m[2]), offset = 0;
      for (size_t l = 1; l < line && offset < text_.size(); ++offset)
        if (text_[offset] == '\n') ++l;
      offset = std::min(offset + column - 1, text_.size() ? text_.size() - 1 : 0);
      return {{file_, static_cast<uint32_t>(offset)}, static_cast<uint32_t>(offset + 1)};
    }
    return whole_;
  }

  SourceRange rangeOfKey(std::string_view key, size_t from, size_t index) {
    std::vector<uint32_t> offsets = keyOffsets(text_, key, from);
    if (index < offsets.size()) return valueRange(file_, text_, offsets[index]);
    return whole_;
  }

  void malformed(std::string_view key, const std::string &message) {
    diags_.report(DiagKind::LibrarySpecMalformed, rangeOfKey(key, 0, 0), message);
  }

  void checkKeys(const JsonValue &object, const std::string &where, std::initializer_list<std::string_view> allowed,
                 SourceRange range = {}) {
    for (const std::string &key : object.keys)
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::vector<uint32_t> offsets = keyOffsets(text_, key, 0);
        SourceRange r = offsets.empty() ? (range.valid() ? range : whole_)
                                        : SourceRange{{file_, offsets[0]}, offsets[0] + uint32_t(key.size() + 2)};
        diags_.report(DiagKind::LibrarySpecMalformed, r, "unknown key '" + key + "'" + where);
      }
  }

  std::string string(const JsonValue &object, std::string_view key, bool required) {
    const JsonValue *v = object.find(key);
    if (!v) {
      if (required) diags_.report(DiagKind::LibrarySpecMalformed, whole_, "missing \"" + std::string(key) + "\"");
      return "";
    }
    if (!v->isString()) {
      malformed(key, "\"" + std::string(key) + "\" is a string");
      return "";
    }
    return v->string;
  }

  std::vector<JsonValue> array(const JsonValue &object, std::string_view key) {
    const JsonValue *v = object.find(key);
    if (!v) return {};
    if (!v->isArray()) {
      malformed(key, "\"" + std::string(key) + "\" is an array");
      return {};
    }
    return v->items;
  }

  rt::Expr expression(const std::string &text, SourceRange range, const std::string &what) {
    try {
      return rt::Expr::parse(text);
    } catch (const rt::ExprSyntaxError &e) {
      diags_.report(DiagKind::LibraryBadGuard, range, what, e.what());
      return {};
    }
  }

  void readVariants(const JsonValue &root, LibrarySpec &spec) {
    const JsonValue *variants = root.find("variants");
    std::vector<uint32_t> keys = keyOffsets(text_, "variants", 0);
    size_t from = keys.empty() ? 0 : keys[0];
    if (!variants || !variants->isArray() || variants->items.empty()) {
      diags_.report(DiagKind::LibrarySpecMalformed, keys.empty() ? whole_ : rangeOfKey("variants", 0, 0),
                    "\"variants\" is a non-empty array of variants");
      return;
    }
    for (size_t i = 0; i < variants->items.size(); ++i) {
      const JsonValue &v = variants->items[i];
      VariantSpec variant;
      variant.range = rangeOfKey("name", from, i);
      if (!v.isObject()) {
        diags_.report(DiagKind::LibrarySpecMalformed, variant.range,
                      "variants[" + std::to_string(i) + "] is an object");
        continue;
      }
      std::string where = " in variants[" + std::to_string(i) + "]";
      checkKeys(v, where, {"name", "source", "kernel", "arch", "defines", "options", "compile", "then", "workspace"},
                variant.range);
      const JsonValue *name = v.find("name");
      const JsonValue *source = v.find("source");
      if (!name || !name->isString() || !std::regex_match(name->string, std::regex("[A-Za-z_][A-Za-z0-9_]*"))) {
        diags_.report(DiagKind::LibrarySpecMalformed, variant.range,
                      "variants[" + std::to_string(i) + "] needs a \"name\" (letters, digits, _): it names its cubin");
        continue;
      }
      variant.name = name->string;
      for (const VariantSpec &other : spec.variants)
        if (other.name == variant.name)
          diags_
              .report(DiagKind::LibrarySpecMalformed, variant.range,
                      "variant name '" + variant.name + "' is used twice")
              .note(other.range, "first used here");
      if (!source || !source->isString() || source->string.empty()) {
        diags_.report(DiagKind::LibrarySpecMalformed, variant.range,
                      "variant '" + variant.name + "' needs a \"source\" (.cake file)");
        continue;
      }
      variant.source = source->string;
      if (const JsonValue *k = v.find("kernel"); k && k->isString()) variant.kernel = k->string;
      if (const JsonValue *a = v.find("arch"); a && a->isString()) variant.arch = a->string;
      readDefines(v, "'" + variant.name + "'", variant.range, variant.defines, variant.typeDefines);
      for (const JsonValue &o :
           v.find("options") && v.find("options")->isArray() ? v.find("options")->items : std::vector<JsonValue>{})
        if (o.isString()) variant.options.push_back(o.string);
      if (const JsonValue *compile = v.find("compile")) {
        bool names = compile->isArray() && !compile->items.empty();
        for (const JsonValue &k : names ? compile->items : std::vector<JsonValue>{})
          if (k.isString() && !k.string.empty()) variant.compile.push_back(k.string);
          else names = false;
        if (!names)
          diags_.report(DiagKind::LibrarySpecMalformed, variant.range,
                        "\"compile\" of '" + variant.name + "' is a non-empty array of kernel names");
        else if (!variant.kernel.empty() &&
                 std::find(variant.compile.begin(), variant.compile.end(), variant.kernel) == variant.compile.end())
          diags_.report(DiagKind::LibrarySpecMalformed, variant.range,
                        "\"compile\" of '" + variant.name + "' leaves out its \"kernel\" '" + variant.kernel + "'");
      }
      variant.then = steps(v, variant);
      variant.workspace = names(v, "workspace", variant);
      if (!variant.then.empty() && variant.kernel.empty())
        diags_.report(DiagKind::LibrarySpecMalformed, variant.range,
                      "\"then\" of '" + variant.name + "' follows a \"kernel\": name the kernel launched first");
      for (const StepSpec &step : variant.then)
        if (step.source.empty() && !variant.compile.empty() &&
            std::find(variant.compile.begin(), variant.compile.end(), step.kernel) == variant.compile.end())
          diags_.report(DiagKind::LibrarySpecMalformed, variant.range,
                        "\"compile\" of '" + variant.name + "' leaves out kernel '" + step.kernel + "' of its \"then\"");
      spec.variants.push_back(std::move(variant));
    }
  }

  // The optional "defines" of `object` (a variant or a step of one): integers and type names.
  void readDefines(const JsonValue &object, const std::string &owner, SourceRange range,
                   std::map<std::string, int64_t> &defines, std::map<std::string, std::string> &typeDefines) {
    const JsonValue *list = object.find("defines");
    if (!list) return;
    if (!list->isObject()) {
      diags_.report(DiagKind::LibrarySpecMalformed, range, "\"defines\" of " + owner + " is an object");
      return;
    }
    for (size_t d = 0; d < list->keys.size(); ++d) {
      const JsonValue &value = list->items[d];
      if (value.isInt())
        defines[list->keys[d]] = value.integer;
      else if (value.isString())
        typeDefines[list->keys[d]] = value.string;
      else
        diags_.report(DiagKind::LibrarySpecMalformed, range,
                      "define '" + list->keys[d] + "' of " + owner + " is an integer or a type name");
    }
  }

  // A variant's optional "then": kernel names of its own source, or {"source", "kernel", "defines"} objects
  // naming a kernel of another source.
  std::vector<StepSpec> steps(const JsonValue &v, const VariantSpec &variant) {
    const JsonValue *list = v.find("then");
    if (!list) return {};
    std::vector<StepSpec> out;
    bool ok = list->isArray() && !list->items.empty();
    for (size_t i = 0; ok && i < list->items.size(); ++i) {
      const JsonValue &k = list->items[i];
      StepSpec step;
      if (k.isString()) {
        step.kernel = k.string;
      } else if (k.isObject()) {
        std::string owner = "step " + std::to_string(i) + " of '" + variant.name + "'";
        checkKeys(k, " in the \"then\" of '" + variant.name + "'", {"source", "kernel", "defines"}, variant.range);
        const JsonValue *source = k.find("source");
        const JsonValue *kernel = k.find("kernel");
        if (!source || !source->isString() || source->string.empty() || !kernel || !kernel->isString()) {
          diags_.report(DiagKind::LibrarySpecMalformed, variant.range,
                        owner + " needs a \"source\" (.cake file) and a \"kernel\"");
          return out;
        }
        step.source = source->string;
        step.kernel = kernel->string;
        readDefines(k, owner, variant.range, step.defines, step.typeDefines);
      }
      ok = std::regex_match(step.kernel, std::regex("[A-Za-z_][A-Za-z0-9_]*"));
      if (ok) out.push_back(std::move(step));
    }
    if (!ok)
      diags_.report(DiagKind::LibrarySpecMalformed, variant.range,
                    "\"then\" of '" + variant.name + "' is a non-empty array of kernel names or "
                    "{\"source\", \"kernel\", \"defines\"} objects");
    return out;
  }

  // An optional array of identifiers (parameter names) of a variant.
  std::vector<std::string> names(const JsonValue &v, std::string_view key, const VariantSpec &variant) {
    const JsonValue *list = v.find(key);
    if (!list) return {};
    std::vector<std::string> out;
    bool ok = list->isArray() && !list->items.empty();
    for (const JsonValue &k : ok ? list->items : std::vector<JsonValue>{}) {
      if (k.isString() && std::regex_match(k.string, std::regex("[A-Za-z_][A-Za-z0-9_]*"))) out.push_back(k.string);
      else ok = false;
    }
    if (!ok)
      diags_.report(DiagKind::LibrarySpecMalformed, variant.range,
                    "\"" + std::string(key) + "\" of '" + variant.name + "' is a non-empty array of names");
    return out;
  }

  void readDispatch(const JsonValue &root, LibrarySpec &spec) {
    const JsonValue *dispatch = root.find("dispatch");
    std::vector<uint32_t> keys = keyOffsets(text_, "dispatch", 0);
    if (!dispatch || !dispatch->isArray() || dispatch->items.empty()) {
      diags_.report(DiagKind::LibrarySpecMalformed, keys.empty() ? whole_ : rangeOfKey("dispatch", 0, 0),
                    "\"dispatch\" is a non-empty array of entries ending in a fallback");
      return;
    }
    // Entry i's location: the i-th "guard" or "fallback" key after "dispatch".
    std::vector<uint32_t> entryKeys = keyOffsets(text_, "guard", keys[0]);
    std::vector<uint32_t> fallbackKeys = keyOffsets(text_, "fallback", keys[0]);
    entryKeys.insert(entryKeys.end(), fallbackKeys.begin(), fallbackKeys.end());
    std::sort(entryKeys.begin(), entryKeys.end());
    SourceRange fallbackRange;
    for (size_t i = 0; i < dispatch->items.size(); ++i) {
      const JsonValue &e = dispatch->items[i];
      EntrySpec entry;
      entry.range = i < entryKeys.size() ? valueRange(file_, text_, entryKeys[i]) : rangeOfKey("dispatch", 0, 0);
      if (!e.isObject()) {
        diags_.report(DiagKind::LibrarySpecMalformed, entry.range, "dispatch[" + std::to_string(i) + "] is an object");
        continue;
      }
      checkKeys(e, " in dispatch[" + std::to_string(i) + "]", {"guard", "fallback", "variant"}, entry.range);
      const JsonValue *variant = e.find("variant");
      const JsonValue *guard = e.find("guard");
      const JsonValue *fallback = e.find("fallback");
      if (!variant || !variant->isString()) {
        diags_.report(DiagKind::LibrarySpecMalformed, entry.range,
                      "dispatch[" + std::to_string(i) + "] needs a \"variant\"");
        continue;
      }
      auto found = std::find_if(spec.variants.begin(), spec.variants.end(),
                                [&](const VariantSpec &v) { return v.name == variant->string; });
      if (found == spec.variants.end()) {
        diags_.report(DiagKind::LibraryUnknownVariant, entry.range, variant->string);
        continue;
      }
      entry.variant = static_cast<size_t>(found - spec.variants.begin());
      if (fallback) {
        if (!fallback->isBool() || !fallback->boolean || guard) {
          diags_.report(DiagKind::LibrarySpecMalformed, entry.range,
                        "a fallback entry is {\"fallback\": true, \"variant\": NAME}, without a guard");
          continue;
        }
        entry.fallback = true;
        entry.guard = rt::Expr::constant(1);
        if (i + 1 != dispatch->items.size()) {
          diags_
              .report(DiagKind::LibraryFallbackPlacement, entry.range,
                      "the fallback is not the last entry: the entries after it can never be chosen")
              .hint("move the fallback to the end of \"dispatch\"");
        }
        fallbackRange = entry.range;
      } else {
        if (!guard || !guard->isString()) {
          diags_.report(DiagKind::LibrarySpecMalformed, entry.range,
                        "dispatch[" + std::to_string(i) + "] needs a \"guard\" expression (or is the fallback)");
          continue;
        }
        entry.guard = expression(guard->string, entry.range, "guard");
        if (!entry.guard.valid()) continue;
      }
      spec.entries.push_back(std::move(entry));
    }
    if (!fallbackRange.valid() && !diags_.hasErrors())
      diags_
          .report(DiagKind::LibraryFallbackPlacement, spec.entries.empty() ? whole_ : spec.entries.back().range,
                  "the dispatch table does not end in a fallback")
          .hint("end \"dispatch\" with {\"fallback\": true, \"variant\": NAME}: a variant that accepts every legal "
                "shape, so that no shape is refused");
  }

  std::string_view text_;
  uint32_t file_;
  DiagnosticEngine &diags_;
  SourceRange whole_;
};

}   // namespace

std::optional<LibrarySpec> readLibrarySpec(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags) {
  return SpecReader(sources, file, diags).read(std::string(sources.name(file)));
}

}   // namespace cake::library
