// Reading library.json (format `cake-library`, docs/library.md) and the dispatcher over its table.
//
// The reader is strict like the manifest reader (Manifest.cpp): unknown keys, wrong types, unknown variant
// names, a table that does not end in exactly one fallback, or variants whose signatures differ are errors
// naming the JSON path of the field.  Guards are parsed with the manifest expression parser and compiled
// with ExprProgram over the library's shape variables, so no name is looked up at dispatch time.
#include "Library.h"

#include "DType.h"
#include "Json.h"
#include "LaunchBinding.h"
#include "VariantParams.h"

#include <cstring>
#include <map>

namespace cake::rt {

namespace {

[[noreturn]] void bad(const std::string &origin, const std::string &path, const std::string &message) {
  throw LaunchError(CAKE_ERROR_MANIFEST, origin + ": " + (path.empty() ? "" : path + ": ") + message);
}

void checkKeys(const std::string &origin, const std::string &path, const JsonValue &object,
               std::initializer_list<std::string_view> allowed) {
  if (!object.isObject())
    bad(origin, path, std::string("expected an object, found ") + std::string(jsonTypeName(object.type)));
  for (const std::string &key : object.keys) {
    bool known = false;
    for (std::string_view a : allowed) known = known || key == a;
    if (!known) bad(origin, path, "unknown key '" + key + "'");
  }
}

const JsonValue &member(const std::string &origin, const std::string &path, const JsonValue &object,
                        std::string_view key, JsonType type) {
  const JsonValue *value = object.find(key);
  if (!value) bad(origin, path, "missing '" + std::string(key) + "'");
  if (value->type != type)
    bad(origin, path + (path.empty() ? "" : ".") + std::string(key),
        "expected " + std::string(jsonTypeName(type)) + ", found " + std::string(jsonTypeName(value->type)));
  return *value;
}

std::string optionalString(const std::string &origin, const std::string &path, const JsonValue &object,
                           std::string_view key) {
  const JsonValue *value = object.find(key);
  if (!value) return "";
  if (!value->isString()) bad(origin, path + "." + std::string(key), "expected a string");
  return value->string;
}

bool plainFileName(const std::string &name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\\') == std::string::npos && name.find('\0') == std::string::npos;
}

std::string directoryOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// A path ending in ".json" names library.json itself; anything else is the library's folder.
bool isDirectory(const std::string &path) { return path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0; }

Expr parseExprAt(const std::string &origin, const std::string &path, const std::string &text) {
  try {
    return Expr::parse(text);
  } catch (const ExprSyntaxError &e) {
    bad(origin, path, e.what());
  }
}

ExprProgram compileAt(const std::string &origin, const std::string &path, const Expr &expr,
                      const std::vector<std::string> &slots) {
  try {
    return ExprProgram::compile(expr, slots);
  } catch (const ExprSyntaxError &e) {
    bad(origin, path, std::string(e.what()) + " (guards may name the library's shape variables only)");
  }
}

// Every variant takes the same arguments (VariantParams.h): those of variant 0.
void checkSignatures(const std::string &origin, const LibraryState &lib,
                     const std::vector<std::vector<const ParamSpec *>> &signatures) {
  for (size_t v = 1; v < lib.variants.size(); ++v)
    if (std::string why = signatureDifference(signatures[0], signatures[v]); !why.empty())
      bad(origin, "variants[" + std::to_string(v) + "] (" + lib.variants[v].name + ")",
          "takes other arguments than " + lib.variants[0].name + ": " + why +
              " (every variant of a library takes the same arguments: name, kind, dtype, rank)");
}

std::vector<std::string> nameList(const std::string &origin, const std::string &path, const JsonValue &object,
                                  std::string_view key) {
  std::vector<std::string> out;
  const JsonValue *list = object.find(key);
  if (!list) return out;
  if (!list->isArray()) bad(origin, path + "." + std::string(key), "expected an array of names");
  for (const JsonValue &item : list->items) {
    if (!item.isString() || item.string.empty()) bad(origin, path + "." + std::string(key), "expected an array of names");
    out.push_back(item.string);
  }
  return out;
}

// A "then" step of a variant: a kernel of the variant's own module (a name) or of another manifest in the
// library's folder ({"manifest", "kernel", ...}).
struct Step {
  std::string kernel;
  std::string manifest;   // empty: the variant's
};

std::vector<Step> steps(const std::string &origin, const std::string &path, const JsonValue &variant) {
  std::vector<Step> out;
  const JsonValue *list = variant.find("then");
  if (!list) return out;
  std::string where = path + ".then";
  if (!list->isArray()) bad(origin, where, "expected an array of kernel names or {\"manifest\", \"kernel\"} objects");
  for (const JsonValue &item : list->items) {
    Step step;
    if (item.isString()) {
      step.kernel = item.string;
    } else if (item.isObject()) {
      checkKeys(origin, where, item, {"manifest", "kernel", "source", "defines"});
      step.kernel = member(origin, where, item, "kernel", JsonType::String).string;
      step.manifest = member(origin, where, item, "manifest", JsonType::String).string;
      if (!plainFileName(step.manifest))
        bad(origin, where, "'" + step.manifest + "' is not a file name in the library's folder");
    }
    if (step.kernel.empty())
      bad(origin, where, "expected an array of kernel names or {\"manifest\", \"kernel\"} objects");
    out.push_back(std::move(step));
  }
  return out;
}

// The module of manifest file `name` in the library's folder, loaded once.
const cake_module *stepModule(LibraryState &lib, std::map<std::string, const cake_module *> &loaded,
                              const std::string &dir, const std::string &name) {
  auto it = loaded.find(name);
  if (it != loaded.end()) return it->second;
  auto module = std::make_unique<cake_module>();
  module->state = loadModuleFromFile(dir + name);
  lib.stepModules.push_back(std::move(module));
  return loaded[name] = lib.stepModules.back().get();
}

const cake_kernel *kernelNamed(const cake_module &module, const std::string &name) {
  for (const cake_kernel &k : module.state->kernels())
    if (k.module->manifest().kernels[k.index].name == name) return &k;
  return nullptr;
}

const KernelSpec &specOf(const cake_kernel *k) { return k->module->manifest().kernels[k->index]; }

}   // namespace

void LibraryState::initEligibility() {
  eligible_ = std::make_unique<std::atomic<bool>[]>(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) eligible_[i].store(true, std::memory_order_relaxed);
}

void LibraryState::setTarget(int major, int minor) {
  std::lock_guard<std::mutex> lock(targetMutex_);
  for (size_t i = 0; i < entries.size(); ++i)
    eligible_[i].store(archRunsOn(variants[entries[i].variant].arch, major, minor), std::memory_order_relaxed);
  target_ = "compute capability " + std::to_string(major) + "." + std::to_string(minor);
  targetSet_.store(true, std::memory_order_release);
}

void LibraryState::setTargetArch(const std::string &arch) {
  // "sm_90a" -> 9.0, "sm_100a" -> 10.0, "sm_86" -> 8.6
  std::string digits;
  size_t i = 3;
  if (arch.rfind("sm_", 0) == 0)
    while (i < arch.size() && arch[i] >= '0' && arch[i] <= '9') digits += arch[i++];
  std::string rest = arch.size() > i ? arch.substr(i) : "";
  if (digits.size() < 2 || digits.size() > 3 || !(rest.empty() || rest == "a" || rest == "f"))
    throw LaunchError(CAKE_ERROR_INVALID_ARGUMENT, "unknown arch '" + arch + "' (expected sm_NN or sm_NNa)");
  setTarget(std::stoi(digits.substr(0, digits.size() - 1)), digits.back() - '0');
}

std::string LibraryState::targetName() const {
  if (!hasTarget()) return "";
  std::lock_guard<std::mutex> lock(const_cast<std::mutex &>(targetMutex_));
  return target_;
}

std::string LibraryState::describeShape(const int64_t *values) const {
  std::string text;
  for (size_t i = 0; i < shapeVars.size(); ++i)
    text += (i ? ", " : "") + shapeVars[i].name + " = " + std::to_string(values[i]);
  return text;
}

void LibraryState::shapeValues(const cake_arg *args, size_t numArgs, const cake_launch_options *options,
                               int64_t *out) const {
  for (size_t i = 0; i < shapeVars.size(); ++i) {
    const LibraryShapeVar &var = shapeVars[i];
    bool found = false;
    if (options && options->shape_vars)
      for (size_t j = 0; j < options->num_shape_vars && !found; ++j)
        if (options->shape_vars[j].name && var.name == options->shape_vars[j].name) {
          out[i] = options->shape_vars[j].value;
          found = true;
        }
    if (!found && var.param >= 0 && static_cast<size_t>(var.param) < numArgs && args) {
      const cake_arg &arg = args[var.param];
      if (arg.kind == CAKE_ARG_TENSOR && arg.shape && var.dim < arg.rank) {
        out[i] = arg.shape[var.dim];
        found = true;
      }
    }
    if (!found)
      throw LaunchError(CAKE_ERROR_ARGUMENT,
                        "library " + name + ": no value for shape variable " + var.name +
                            (var.param >= 0 ? " (dim " + std::to_string(var.dim) + " of argument " +
                                                  std::to_string(var.param) + ", which has no shape)"
                                            : " (give it in the launch options' shape_vars)"));
  }
}

std::string LibraryState::explain(const int64_t *values, int *chosen) const {
  *chosen = -1;
  std::string text = "library " + name + " at " + describeShape(values);
  if (hasTarget()) text += " on " + targetName();
  text += ":\n";
  auto valuesOf = [&](const Expr &expr) {
    std::string names;
    for (const std::string &n : expr.names())
      for (size_t i = 0; i < shapeVars.size(); ++i)
        if (shapeVars[i].name == n) names += (names.empty() ? "" : ", ") + n + " = " + std::to_string(values[i]);
    return names;
  };
  for (size_t i = 0; i < entries.size(); ++i) {
    const LibraryEntry &e = entries[i];
    const LibraryVariant &v = variants[e.variant];
    std::string head = "  [" + std::to_string(i) + "] " + v.name + (e.fallback ? " (fallback)" : "") + ": ";
    if (!eligible_[i].load(std::memory_order_relaxed)) {
      text += head + "skipped: built for " + v.arch + ", which does not run on " + targetName() + "\n";
      continue;
    }
    int64_t result = 0;
    std::string error;
    if (!e.program.evaluate(values, result, &error)) {
      text += head + "guard `" + e.guard.text() + "` cannot be evaluated: " + error + "; dispatch stops here\n";
      return text;
    }
    if (result) {
      text += head + "chosen: " +
              (e.fallback ? std::string("the fallback accepts every shape") : "guard `" + e.guard.text() + "` holds") +
              (e.loc.empty() ? "" : " (" + e.loc + ")") + "\n";
      *chosen = static_cast<int>(i);
      return text;
    }
    // The first false conjunct says why.
    std::string why = "guard `" + e.guard.text() + "` is false";
    for (size_t c = 0; c < e.conjuncts.size(); ++c) {
      int64_t part = 0;
      if (e.conjunctPrograms[c].evaluate(values, part) && !part) {
        why = (e.conjuncts.size() > 1 ? "`" + e.conjuncts[c].text() + "` of the guard is false"
                                      : "guard `" + e.guard.text() + "` is false");
        std::string names = valuesOf(e.conjuncts[c]);
        if (!names.empty()) why += " (" + names + ")";
        break;
      }
    }
    text += head + "not taken: " + why + "\n";
  }
  text += "  no entry accepts this shape\n";
  return text;
}

WorkspaceLayout LibraryState::workspaceLayout(size_t variant, const int64_t *values) const {
  WorkspaceLayout layout;
  const LibraryVariant &v = variants[variant];
  std::vector<int64_t> slots(values, values + shapeVars.size());
  for (const LibraryWorkspace &w : v.workspace) {
    slots.resize(shapeVars.size());
    slots.insert(slots.end(), w.ctValues.begin(), w.ctValues.end());
    std::vector<int64_t> dims;
    uint64_t elements = 1;
    for (size_t d = 0; d < w.dims.size(); ++d) {
      int64_t value = 0;
      std::string error;
      if (!w.dims[d].evaluate(slots.data(), value, &error) || value < 0 ||
          (value > 0 && elements > (uint64_t(1) << 40) / uint64_t(value)))
        throw LaunchError(CAKE_ERROR_ARGUMENT, "library " + name + ", variant " + v.name + ": workspace " + w.name +
                                                   " dim " + std::to_string(d) + " at " + describeShape(values) +
                                                   (error.empty() ? " is negative or too large" : ": " + error));
      elements *= uint64_t(value);
      dims.push_back(value);
    }
    size_t offset = (layout.bytes + 255) / 256 * 256;
    layout.offsets.push_back(offset);
    layout.bytes = offset + elements * dtypeSize(w.dtype);
    layout.dims.push_back(std::move(dims));
  }
  return layout;
}

void LibraryState::launchVariant(size_t variant, const cake_arg *args, size_t numArgs,
                                 const cake_launch_options *options, const int64_t *values, uint64_t workspace,
                                 size_t workspaceBytes) const {
  const LibraryVariant &v = variants[variant];
  WorkspaceLayout layout;
  if (!v.workspace.empty()) {
    layout = workspaceLayout(variant, values);
    if (workspace == 0 || workspaceBytes < layout.bytes)
      throw LaunchError(CAKE_ERROR_ARGUMENT,
                        "library " + name + ", variant " + v.name + " needs " + std::to_string(layout.bytes) +
                            " bytes of device workspace at " + describeShape(values) + ", " +
                            (workspace == 0 ? std::string("none was given")
                                            : std::to_string(workspaceBytes) + " were given") +
                            " (cake_library_workspace_bytes says how much; cake_library_launch_workspace passes it)");
  }
  std::vector<cake_arg> stepArgs;
  for (const LibraryStep &step : v.steps) {
    stepArgs.clear();
    for (int a : step.args) {
      if (a >= 0) {
        if (static_cast<size_t>(a) >= numArgs)
          throw LaunchError(CAKE_ERROR_ARGUMENT, "library " + name + ": " + std::to_string(numArgs) +
                                                     " arguments given, variant " + v.name + " takes more");
        stepArgs.push_back(args[a]);
        continue;
      }
      size_t w = static_cast<size_t>(-1 - a);
      cake_arg t{};
      t.kind = CAKE_ARG_TENSOR;
      t.dtype = v.workspace[w].dtype;
      t.data = workspace + layout.offsets[w];
      t.rank = static_cast<int32_t>(layout.dims[w].size());
      t.shape = layout.dims[w].data();
      stepArgs.push_back(t);
    }
    char message[2048];
    cake_status status = cake_launch(step.kernel, stepArgs.data(), stepArgs.size(), options, message, sizeof message);
    if (status != CAKE_OK)
      throw LaunchError(status, "library " + name + ", variant " + v.name +
                                    (v.steps.size() > 1 ? " (kernel " + specOf(step.kernel).name + ")" : "") + ": " +
                                    message);
  }
}

std::unique_ptr<LibraryState> loadLibrary(const std::string &pathIn) {
  std::string path = pathIn;
  if (isDirectory(path)) path = (path.empty() || path.back() == '/' ? path : path + "/") + "library.json";
  std::vector<unsigned char> bytes = readRegularFile(path, kMaxManifestBytes, "library manifest");
  JsonParseResult parsed = parseJson(std::string_view(reinterpret_cast<const char *>(bytes.data()), bytes.size()));
  const std::string &o = path;
  if (!parsed.ok) bad(o, "", "invalid JSON: " + parsed.error);
  const JsonValue &root = parsed.value;
  checkKeys(o, "", root,
            {"format", "version", "generator", "name", "source", "shape_vars", "domain", "variants", "dispatch"});
  if (member(o, "", root, "format", JsonType::String).string != kLibraryFormat)
    bad(o, "format", "expected \"cake-library\"");
  int64_t version = member(o, "", root, "version", JsonType::Int).integer;
  if (version != kLibraryVersion)
    bad(o, "version",
        "version " + std::to_string(version) + " is not supported (this runtime reads version " +
            std::to_string(kLibraryVersion) + ")");
  optionalString(o, "", root, "generator");
  optionalString(o, "", root, "source");

  auto lib = std::make_unique<LibraryState>();
  lib->origin = path;
  lib->name = member(o, "", root, "name", JsonType::String).string;

  const JsonValue &vars = member(o, "", root, "shape_vars", JsonType::Array);
  for (size_t i = 0; i < vars.items.size(); ++i) {
    std::string where = "shape_vars[" + std::to_string(i) + "]";
    const JsonValue &v = vars.items[i];
    checkKeys(o, where, v, {"name", "from"});
    LibraryShapeVar var;
    var.name = member(o, where, v, "name", JsonType::String).string;
    const JsonValue *from = v.find("from");
    if (from && !from->isNull()) {
      checkKeys(o, where + ".from", *from, {"param", "dim"});
      var.param = static_cast<int>(member(o, where + ".from", *from, "param", JsonType::Int).integer);
      var.dim = static_cast<int>(member(o, where + ".from", *from, "dim", JsonType::Int).integer);
      if (var.param < 0 || var.dim < 0 || var.dim >= kMaxTensorRank)
        bad(o, where + ".from", "param and dim must be non-negative (dim < 8)");
    }
    for (const LibraryShapeVar &other : lib->shapeVars)
      if (other.name == var.name) bad(o, where, "shape variable '" + var.name + "' is listed twice");
    lib->shapeVarNames.push_back(var.name);
    lib->shapeVars.push_back(std::move(var));
  }
  if (const JsonValue *domain = root.find("domain")) {
    if (!domain->isString()) bad(o, "domain", "expected a string");
    lib->domain = parseExprAt(o, "domain", domain->string);
    lib->domainProgram = compileAt(o, "domain", lib->domain, lib->shapeVarNames);
  }

  const JsonValue &variants = member(o, "", root, "variants", JsonType::Array);
  if (variants.items.empty()) bad(o, "variants", "a library has at least one variant");
  const std::string dir = directoryOf(path);
  std::vector<std::vector<const ParamSpec *>> signatures;   // per variant: the arguments it takes
  std::map<std::string, const cake_module *> stepModules;   // manifest file -> module, of "then" steps
  for (size_t i = 0; i < variants.items.size(); ++i) {
    std::string where = "variants[" + std::to_string(i) + "]";
    const JsonValue &v = variants.items[i];
    checkKeys(o, where, v, {"name", "manifest", "kernel", "then", "workspace", "arch", "source", "defines"});
    LibraryVariant variant;
    variant.name = member(o, where, v, "name", JsonType::String).string;
    for (const LibraryVariant &other : lib->variants)
      if (other.name == variant.name) bad(o, where, "variant name '" + variant.name + "' is used twice");
    std::string manifest = member(o, where, v, "manifest", JsonType::String).string;
    if (!plainFileName(manifest))
      bad(o, where + ".manifest", "'" + manifest + "' is not a file name in the library's folder");
    std::string kernelName = member(o, where, v, "kernel", JsonType::String).string;
    optionalString(o, where, v, "source");
    if (const JsonValue *defines = v.find("defines"); defines && !defines->isObject())
      bad(o, where + ".defines", "expected an object");
    variant.module = std::make_unique<cake_module>();
    variant.module->state = loadModuleFromFile(dir + manifest);
    variant.arch = variant.module->state->manifest().arch;
    std::string arch = optionalString(o, where, v, "arch");
    if (!arch.empty() && arch != variant.arch)
      bad(o, where + ".arch", "says " + arch + " but " + manifest + " was built for " + variant.arch);
    const cake_kernel *first = kernelNamed(*variant.module, kernelName);
    if (!first) bad(o, where + ".kernel", manifest + " has no kernel '" + kernelName + "'");
    std::vector<const KernelSpec *> kernels{&specOf(first)};
    std::vector<const cake_kernel *> launched{first};
    for (const Step &step : steps(o, where, v)) {
      const cake_module *module = variant.module.get();
      if (!step.manifest.empty()) {
        module = stepModule(*lib, stepModules, dir, step.manifest);
        if (module->state->manifest().arch != variant.arch)
          bad(o, where + ".then", step.manifest + " was built for " + module->state->manifest().arch + ", " +
                                      manifest + " for " + variant.arch);
      }
      launched.push_back(kernelNamed(*module, step.kernel));
      if (!launched.back())
        bad(o, where + ".then", (step.manifest.empty() ? manifest : step.manifest) + " has no kernel '" + step.kernel + "'");
      kernels.push_back(&specOf(launched.back()));
    }
    std::vector<std::string> workspace = nameList(o, where, v, "workspace");
    VariantParams params = variantParams(kernels, workspace);
    if (!params.error.empty()) bad(o, where, params.error);
    for (size_t k = 0; k < launched.size(); ++k) variant.steps.push_back({launched[k], params.kernelArgs[k]});
    for (size_t wi = 0; wi < params.workspace.size(); ++wi) {
      const ParamSpec *w = params.workspace[wi];
      LibraryWorkspace ws;
      ws.name = w->name;
      ws.dtype = w->dtype;
      ws.align = w->align;
      // The dims' names: the library's shape variables, then the ct parameters of the kernel declaring it.
      const KernelSpec *owner = kernels[params.workspaceOwner[wi]];
      std::vector<std::string> slots = lib->shapeVarNames;
      for (const auto &[name, value] : owner->ctParams) {
        slots.push_back(name);
        ws.ctValues.push_back(value);
      }
      for (const Expr &dim : w->dims) ws.dims.push_back(compileAt(o, where + ".workspace (" + w->name + ")", dim, slots));
      variant.workspace.push_back(std::move(ws));
    }
    signatures.push_back(params.signature);
    lib->variants.push_back(std::move(variant));
  }
  checkSignatures(o, *lib, signatures);
  const std::vector<const ParamSpec *> &first = signatures[0];
  for (size_t i = 0; i < lib->shapeVars.size(); ++i) {
    const LibraryShapeVar &var = lib->shapeVars[i];
    if (var.param >= 0 &&
        (static_cast<size_t>(var.param) >= first.size() || first[var.param]->kind != CAKE_ARG_TENSOR ||
         var.dim >= first[var.param]->rank()))
      bad(o, "shape_vars[" + std::to_string(i) + "].from",
          "parameter " + std::to_string(var.param) + " has no dim " + std::to_string(var.dim));
  }

  const JsonValue &dispatch = member(o, "", root, "dispatch", JsonType::Array);
  if (dispatch.items.empty() || dispatch.items.size() > kMaxLibraryEntries)
    bad(o, "dispatch", "the table has 1.." + std::to_string(kMaxLibraryEntries) + " entries");
  for (size_t i = 0; i < dispatch.items.size(); ++i) {
    std::string where = "dispatch[" + std::to_string(i) + "]";
    const JsonValue &e = dispatch.items[i];
    checkKeys(o, where, e, {"guard", "fallback", "variant", "loc"});
    LibraryEntry entry;
    std::string variantName = member(o, where, e, "variant", JsonType::String).string;
    bool found = false;
    for (size_t v = 0; v < lib->variants.size() && !found; ++v)
      if (lib->variants[v].name == variantName) {
        entry.variant = v;
        found = true;
      }
    if (!found) bad(o, where + ".variant", "no variant named '" + variantName + "'");
    entry.loc = optionalString(o, where, e, "loc");
    const JsonValue *fallback = e.find("fallback");
    if (fallback && !fallback->isBool()) bad(o, where + ".fallback", "expected true or false");
    entry.fallback = fallback && fallback->boolean;
    const JsonValue *guard = e.find("guard");
    if (entry.fallback) {
      if (guard) bad(o, where, "a fallback has no guard (it accepts every shape)");
      if (i + 1 != dispatch.items.size())
        bad(o, where, "the fallback must be the last entry (entries after it could never be chosen)");
      entry.guard = Expr::constant(1);
    } else {
      if (!guard || !guard->isString()) bad(o, where, "an entry has a \"guard\" string (or is the \"fallback\")");
      if (i + 1 == dispatch.items.size())
        bad(o, where, "the table must end in a fallback entry ({\"fallback\": true, \"variant\": ...})");
      entry.guard = parseExprAt(o, where + ".guard", guard->string);
    }
    entry.program = compileAt(o, where + ".guard", entry.guard, lib->shapeVarNames);
    entry.conjuncts = entry.guard.conjuncts();
    for (const Expr &c : entry.conjuncts) entry.conjunctPrograms.push_back(ExprProgram::compile(c, lib->shapeVarNames));
    lib->entries.push_back(std::move(entry));
  }
  lib->initEligibility();
  return lib;
}

}   // namespace cake::rt
