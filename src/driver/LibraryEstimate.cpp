// cakec library estimate (see LibraryEstimate.h): every variant of a library spec priced by the cost model
// at each --shape, as the sequence of kernels it launches, ranked, with the dispatch table's choice.
//
// How: each distinct compile unit (a source with its defines, type defines, the kernels it compiles and its
// arch: the variant's own, and each "then" step's, as `cakec library build` compiles them) is prepared once (prepareVariant: parse, sema, PTX in memory; no verifier - a price
// is not a proof, `cakec library build` proves) and estimated per shape kernel by kernel
// (cost::estimateKernel: a kernel ignores the shape names it does not use, so a reduce over [M, N] is priced
// at M, N, K).  A variant's time is the sum of its kernels' predicted times, each with its launch overhead;
// a kernel that cannot run at the shape (its `requires` false there, no block fits, a grid out of range)
// refuses the variant with that diagnostic's code and message.  The table's choice is the first entry whose
// guard holds at the shape (the runtime's expression evaluator), the fallback otherwise.
#include "driver/LibraryEstimate.h"

#include "cost/Machine.h"
#include "driver/Driver.h"
#include "driver/EstimateCommand.h"
#include "library/LibrarySpec.h"
#include "support/ReadFile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

namespace cake {

namespace {

namespace fs = std::filesystem;
using library::LibrarySpec;
using library::VariantSpec;

constexpr uint64_t kMaxSpecBytes = 16ull << 20;

// One kernel of a variant's sequence, found once in its prepared unit: the kernel and its machine, or why none
// of the variant's shapes can be priced (the unit failed, or it has no such kernel).
struct SequenceStep {
  const PreparedVariant *unit = nullptr;
  const cost::Machine *machine = nullptr;
  const Kernel *kernel = nullptr;
  const KernelInfo *info = nullptr;
  std::string code, reason;
};

// A diagnostic's code and message without a source location: for what is about a spec entry, not a line.
template <class... Args>
void refusal(std::string &code, std::string &reason, DiagKind kind, const Args &...args) {
  SourceManager none;
  DiagnosticEngine scratch(none, 1);
  scratch.report(kind, SourceRange{}, args...);
  reason = firstError(scratch, &code);
}

struct StepPrice {
  std::string kernel, machine, bottleneck;
  double ms = 0;
};

struct VariantPrice {
  std::string variant;
  std::vector<StepPrice> steps;
  double ms = 0;
  std::string code, reason;   // refused: the first diagnostic's code and message
  bool ok() const { return reason.empty(); }
};

// The shape's names in the library's order (shape_vars), then any others in name order.
std::vector<std::pair<std::string, int64_t>> orderedShape(const LibrarySpec &spec,
                                                          const std::map<std::string, int64_t> &shape) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const std::string &name : spec.shapeVars)
    if (auto it = shape.find(name); it != shape.end()) out.emplace_back(name, it->second);
  for (const auto &[name, value] : shape)
    if (std::find(spec.shapeVars.begin(), spec.shapeVars.end(), name) == spec.shapeVars.end())
      out.emplace_back(name, value);
  return out;
}

class Pricer {
public:
  Pricer(const LibraryEstimateOptions &opts, const fs::path &specDir) : opts_(opts), specDir_(specDir) {}

  // The unit of a source with its defines; prepared on first use.
  std::string unit(const std::string &source, const std::map<std::string, int64_t> &defines,
                   const std::map<std::string, std::string> &typeDefines, const std::vector<std::string> &kernels,
                   const std::string &arch) {
    fs::path path = fs::path(source).is_absolute() ? fs::path(source) : (specDir_ / source).lexically_normal();
    nlohmann::json key = {path.string(), defines, typeDefines, kernels, arch};
    std::string k = key.dump();
    if (units_.count(k)) return k;
    Unit u;
    // A unit none of whose kernels can be priced keeps the diagnostic's code and message.
    auto fail = [&](DiagKind kind, const auto &...args) { refusal(u.code, u.reason, kind, args...); };
    ReadFileResult text = readFileBounded(path.string(), kMaxSpecBytes);
    if (!text.ok()) {
      fail(DiagKind::CannotReadFile, path.string(), text.error);
    } else {
      VariantRequest request;
      request.name = path.string();
      request.text = text.text;
      request.defines = defines;
      request.typeDefines = typeDefines;
      request.kernels = kernels;
      request.arch = arch.empty() ? std::nullopt : parseArch(arch);
      request.verify = false;
      u.prepared = prepareVariant(request);
      if (!u.prepared->ok()) {
        u.code = u.prepared->rejection.code;
        u.reason = u.prepared->rejection.reason;
      } else if (!u.prepared->codegenProblem.empty()) {
        u.code = u.prepared->codegenCode;
        u.reason = "would not compile: " + u.prepared->codegenProblem;
      } else {
        Arch target = u.prepared->sema.arch;
        cost::MachineLoadResult loaded = cost::findMachine(opts_.machine, target);
        if (!loaded.machine)
          fail(DiagKind::MachineUnavailable, opts_.machine.empty() ? "(default for " + std::string(archName(target)) + ")"
                                                                  : opts_.machine, loaded.error);
        else if (!loaded.machine->runs(target))
          fail(DiagKind::MachineCannotRun, loaded.machine->name, archName(target));
        else
          u.machine = *loaded.machine;
      }
    }
    units_.emplace(k, std::move(u));
    return k;
  }

  // The step of the sequence that runs kernel `name` (empty: the unit's only kernel) of unit `key`.
  SequenceStep step(const std::string &key, const std::string &name, const std::string &variant) const {
    const Unit &u = units_.at(key);
    SequenceStep st;
    if (!u.reason.empty()) {
      st.code = u.code;
      st.reason = u.reason;
      return st;
    }
    const Module &module = *u.prepared->module;
    for (const auto &k : module.kernels)
      if (k->name == name || (name.empty() && module.kernels.size() == 1)) st.kernel = k.get();
    st.info = st.kernel ? u.prepared->sema.kernelInfo(st.kernel) : nullptr;
    if (!st.info)
      refusal(st.code, st.reason, DiagKind::LibraryUnknownKernel, variant,
              name.empty() ? "its source has several kernels; name one with \"kernel\""
                           : "its source has no kernel '" + name + "'");
    st.unit = u.prepared.get();
    st.machine = &*u.machine;
    return st;
  }

  static VariantPrice price(const std::string &variant, const std::vector<SequenceStep> &steps,
                            const std::map<std::string, int64_t> &shape) {
    VariantPrice p;
    p.variant = variant;
    for (const SequenceStep &s : steps) {
      if (!s.reason.empty()) {
        p.code = s.code;
        p.reason = s.reason;
        return p;
      }
      DiagnosticEngine diags(s.unit->sources, 1);
      cost::EstimateOptions options;
      options.shape = shape;
      std::optional<cost::Estimate> e = cost::estimateKernel(*s.kernel, *s.info, *s.machine, options, diags);
      if (!e || diags.hasErrors()) {
        p.reason = firstError(diags, &p.code);
        return p;
      }
      p.steps.push_back({s.kernel->name, e->machine, e->bottleneck, e->seconds * 1e3});
      p.ms += e->seconds * 1e3;
    }
    return p;
  }

private:
  struct Unit {
    std::unique_ptr<PreparedVariant> prepared;
    std::optional<cost::Machine> machine;
    std::string code, reason;   // set: no kernel of this unit can be priced
  };
  const LibraryEstimateOptions &opts_;
  fs::path specDir_;
  std::map<std::string, Unit> units_;
};

// The variant the table dispatches `shape` to: the first entry whose guard holds ("" when a guard cannot be
// evaluated at the shape - an unbound name or an overflow - before one holds).
std::string tableChoice(const LibrarySpec &spec, const std::map<std::string, int64_t> &shape) {
  auto lookup = [&](std::string_view name) -> std::optional<int64_t> {
    auto it = shape.find(std::string(name));
    if (it == shape.end()) return std::nullopt;
    return it->second;
  };
  for (const library::EntrySpec &e : spec.entries) {
    if (e.fallback) return spec.variants[e.variant].name;
    try {
      if (e.guard.evaluate(lookup) != 0) return spec.variants[e.variant].name;
    } catch (const rt::ExprEvalError &) {
      return "";
    }
  }
  return "";
}

}   // namespace

ExitCode runLibraryEstimate(const LibraryEstimateOptions &opts) {
  SourceManager sources;
  DiagnosticEngine diags(sources);
  ReadFileResult text = readFileBounded(opts.spec, kMaxSpecBytes);
  if (!text.ok()) {
    diags.report(DiagKind::CannotReadFile, SourceRange{}, opts.spec,
                 text.status == ReadFileResult::TooLarge ? std::string("larger than 16 MiB") : text.error);
    diags.renderText(std::cerr, opts.color);
    return ExitCode::Environment;
  }
  uint32_t file = sources.addBuffer(opts.spec, text.text);
  std::optional<LibrarySpec> spec = library::readLibrarySpec(sources, file, diags);
  if (spec && !opts.machine.empty()) {   // a named machine must load (each arch's default is looked up per variant)
    cost::MachineLoadResult loaded = cost::findMachine(opts.machine, Arch::SM90a);
    if (!loaded.machine) diags.report(DiagKind::MachineUnavailable, SourceRange{}, opts.machine, loaded.error);
  }
  diags.renderText(std::cerr, opts.color);
  if (!spec || diags.hasErrors()) return ExitCode::InputErrors;
  Pricer pricer(opts, fs::path(opts.spec).parent_path());
  std::vector<std::vector<SequenceStep>> sequences;
  for (const VariantSpec &v : spec->variants) {
    std::string own = pricer.unit(v.source, v.defines, v.typeDefines, v.compile, v.arch);
    std::vector<SequenceStep> seq;
    seq.push_back(pricer.step(own, !v.kernel.empty() ? v.kernel : v.compile.size() == 1 ? v.compile.front() : "", v.name));
    for (const library::StepSpec &step : v.then) {
      std::string unit = step.source.empty()
                             ? own : pricer.unit(step.source, step.defines, step.typeDefines, {step.kernel}, v.arch);
      seq.push_back(pricer.step(unit, step.kernel, v.name));
    }
    sequences.push_back(std::move(seq));
  }

  nlohmann::ordered_json doc;
  doc["format"] = "cake-library-estimate";
  doc["version"] = 1;
  doc["library"] = spec->name;
  doc["shapes"] = nlohmann::ordered_json::array();
  for (const std::map<std::string, int64_t> &shape : opts.shapes) {
    std::vector<VariantPrice> prices;
    for (size_t i = 0; i < spec->variants.size(); ++i)
      prices.push_back(Pricer::price(spec->variants[i].name, sequences[i], shape));
    std::stable_sort(prices.begin(), prices.end(), [](const VariantPrice &a, const VariantPrice &b) {
      if (a.ok() != b.ok()) return a.ok();
      return a.ok() && a.ms < b.ms;
    });
    std::string chosen = tableChoice(*spec, shape);
    if (opts.json) {
      nlohmann::ordered_json s;
      s["shape"] = nlohmann::ordered_json::object();
      for (const auto &[name, value] : orderedShape(*spec, shape)) s["shape"][name] = value;
      s["table"] = chosen.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(chosen);
      s["variants"] = nlohmann::ordered_json::array();
      for (const VariantPrice &p : prices) {
        nlohmann::ordered_json v;
        v["variant"] = p.variant;
        if (p.ok()) {
          v["predicted_ms"] = p.ms;
          v["steps"] = nlohmann::ordered_json::array();
          for (const StepPrice &st : p.steps)
            v["steps"].push_back({{"kernel", st.kernel}, {"predicted_ms", st.ms}, {"bottleneck", st.bottleneck},
                                  {"machine", st.machine}});
        } else {
          v["code"] = p.code;
          v["reason"] = p.reason;
        }
        s["variants"].push_back(std::move(v));
      }
      doc["shapes"].push_back(std::move(s));
      continue;
    }
    size_t feasible = std::count_if(prices.begin(), prices.end(), [](const VariantPrice &p) { return p.ok(); });
    auto rankOf = [&](const std::string &name) -> size_t {
      for (size_t i = 0; i < feasible; ++i)
        if (prices[i].variant == name) return i + 1;
      return 0;
    };
    std::string at;
    for (const auto &[name, value] : orderedShape(*spec, shape)) at += (at.empty() ? "" : ",") + name + "=" + std::to_string(value);
    std::cout << spec->name << " at " << at << ": table -> " << (chosen.empty() ? "(no entry)" : chosen);
    if (size_t r = rankOf(chosen)) std::cout << ", predicted rank " << r << " of " << feasible;
    std::cout << "\n";
    char line[256];
    for (size_t i = 0; i < feasible; ++i) {
      const VariantPrice &p = prices[i];
      std::string steps;
      if (p.steps.size() > 1)
        for (const StepPrice &st : p.steps) {
          char part[128];
          std::snprintf(part, sizeof part, "%s%s %.4f", steps.empty() ? "" : " + ", st.kernel.c_str(), st.ms);
          steps += part;
        }
      std::snprintf(line, sizeof line, "  %3zu  %-28s %10.4f ms  %s", i + 1, p.variant.c_str(), p.ms,
                    p.steps.empty() ? "" : p.steps.front().bottleneck.c_str());
      std::cout << line << (steps.empty() ? "" : "  (" + steps + ")") << "\n";
    }
    for (size_t i = feasible; i < prices.size(); ++i) {
      std::snprintf(line, sizeof line, "    -  %-28s refused: ", prices[i].variant.c_str());
      std::cout << line << prices[i].reason << " [" << prices[i].code << "]\n";
    }
  }
  if (opts.json) std::cout << doc.dump(1) << "\n";
  return ExitCode::Success;
}

}   // namespace cake
