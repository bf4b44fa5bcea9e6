// Reading the measurements format (see Measurements.h).
#include "cost/Measurements.h"

#include "Json.h"   // runtime/src/Json.h

namespace cake::cost {

using rt::JsonType;
using rt::JsonValue;

namespace {

bool intMap(const JsonValue *v, std::map<std::string, int64_t> &out) {
  if (!v) return true;
  if (!v->isObject()) return false;
  for (size_t i = 0; i < v->keys.size(); ++i) {
    if (v->items[i].type != JsonType::Int) return false;
    out[v->keys[i]] = v->items[i].integer;
  }
  return true;
}

std::string stringOr(const JsonValue *v, std::string fallback) {
  return v && v->isString() ? v->string : fallback;
}

} // namespace

MeasurementsLoad parseMeasurements(std::string_view jsonText) {
  rt::JsonParseResult parsed = rt::parseJson(jsonText);
  if (!parsed.ok) return {std::nullopt, "malformed JSON: " + parsed.error};
  const JsonValue &root = parsed.value;
  const JsonValue *format = root.find("format");
  if (!format || !format->isString() || format->string != "cake-measurements")
    return {std::nullopt, "expected \"format\": \"cake-measurements\""};
  const JsonValue *version = root.find("version");
  if (!version || version->type != JsonType::Int || version->integer != 1)
    return {std::nullopt, "expected \"version\": 1"};
  const JsonValue *list = root.find("measurements");
  if (!list || !list->isArray()) return {std::nullopt, "expected a \"measurements\" list"};
  MeasurementSet set;
  set.device = stringOr(root.find("device"), "");
  for (size_t i = 0; i < list->items.size(); ++i) {
    const JsonValue &m = list->items[i];
    std::string where = "measurement " + std::to_string(i) + ": ";
    if (!m.isObject()) return {std::nullopt, where + "expected an object"};
    Measurement x;
    x.kernelFile = stringOr(m.find("kernel_file"), "");
    if (x.kernelFile.empty()) return {std::nullopt, where + "missing \"kernel_file\""};
    x.kernel = stringOr(m.find("kernel"), "");
    if (const JsonValue *a = m.find("arch")) {
      x.arch = a->isString() ? parseArch(a->string) : std::nullopt;
      if (!x.arch) return {std::nullopt, where + "unknown \"arch\""};
    }
    if (!intMap(m.find("defines"), x.defines)) return {std::nullopt, where + "\"defines\" must map names to integers"};
    if (!intMap(m.find("shape"), x.shape)) return {std::nullopt, where + "\"shape\" must map names to integers"};
    const JsonValue *ms = m.find("ms");
    if (!ms || (ms->type != JsonType::Int && ms->type != JsonType::Double))
      return {std::nullopt, where + "missing numeric \"ms\""};
    x.ms = ms->type == JsonType::Int ? static_cast<double>(ms->integer) : ms->number;
    if (!(x.ms > 0)) return {std::nullopt, where + "\"ms\" must be positive"};
    x.device = stringOr(m.find("device"), set.device);
    x.label = stringOr(m.find("label"), x.kernelFile);
    set.items.push_back(std::move(x));
  }
  if (set.items.empty()) return {std::nullopt, "no measurements"};
  return {std::move(set), {}};
}

} // namespace cake::cost
