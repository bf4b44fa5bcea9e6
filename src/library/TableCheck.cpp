// Dispatch-table checks (see TableCheck.h).  One Z3 context per build; each guard, the domain and each
// checked `requires` clause is translated once (GuardToZ3), and every question is one satisfiability query
// whose model, when there is one, is printed as the counterexample shape.
#include "library/TableCheck.h"

#include "DType.h"
#include "ExprProgram.h"
#include "VariantParams.h"
#include "library/GuardToZ3.h"
#include "support/ReadFile.h"

#include <z3++.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace cake::library {

namespace {

// "sm_90a" -> (9, 0, arch-specific); nullopt if not an arch spelling.
struct ArchVersion {
  int major = 0, minor = 0;
  bool specific = false;
};
std::optional<ArchVersion> parseArch(const std::string &arch) {
  if (arch.rfind("sm_", 0) != 0) return std::nullopt;
  size_t i = 3;
  std::string digits;
  while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i]))) digits += arch[i++];
  if (digits.size() < 2 || digits.size() > 3) return std::nullopt;
  return ArchVersion{std::stoi(digits.substr(0, digits.size() - 1)), digits.back() - '0', i < arch.size()};
}

// Whether a cubin built for `arch` runs on the device `target` names (the runtime's rule, Module.h archRunsOn).
bool runsOn(const std::string &arch, const std::string &target) {
  auto a = parseArch(arch), t = parseArch(target);
  if (!a || !t) return true;
  return a->specific ? (a->major == t->major && a->minor == t->minor) : (a->major == t->major && t->minor >= a->minor);
}

}   // namespace

std::vector<const rt::KernelSpec *> BuiltVariant::kernels() const {
  std::vector<const rt::KernelSpec *> out{&first.spec()};
  for (const BuiltKernel &k : then) out.push_back(&k.spec());
  return out;
}

std::optional<std::vector<ShapeVarSource>>
resolveShapeVars(const LibrarySpec &spec, const std::vector<BuiltVariant> &variants, DiagnosticEngine &diags) {
  unsigned before = diags.errorCount();
  std::vector<rt::VariantParams> params;
  for (size_t v = 0; v < variants.size(); ++v) {
    params.push_back(rt::variantParams(variants[v].kernels(), variants[v].workspace));
    if (!params[v].error.empty())
      diags.report(DiagKind::LibraryVariantKernels, spec.variants[v].range, spec.variants[v].name, params[v].error);
  }
  if (diags.errorCount() != before) return std::nullopt;
  for (size_t v = 1; v < variants.size(); ++v)
    if (std::string why = rt::signatureDifference(params[0].signature, params[v].signature); !why.empty())
      diags
          .report(DiagKind::LibrarySignatureMismatch, spec.variants[v].range, spec.variants[v].name,
                  spec.variants[0].name, why)
          .note(spec.variants[0].range, "'" + spec.variants[0].name + "' is declared here");
  // The library's shape variables: the spec's list, else those its first variant's kernels read from the dims
  // of its arguments.
  std::vector<std::string> names = spec.shapeVars;
  if (names.empty())
    for (size_t k = 0; k < params[0].kernelArgs.size(); ++k)
      for (const rt::ShapeVarSpec &s : variants[0].kernels()[k]->shapeVars)
        if (s.param >= 0 && !s.fromStride && params[0].kernelArgs[k][static_cast<size_t>(s.param)] >= 0 &&
            std::find(names.begin(), names.end(), s.name) == names.end())
          names.push_back(s.name);
  std::vector<ShapeVarSource> out;
  for (const std::string &name : names) {
    ShapeVarSource source{name, -1, -1};
    size_t definedBy = SIZE_MAX;
    for (size_t v = 0; v < variants.size(); ++v) {
      std::vector<const rt::KernelSpec *> kernels = variants[v].kernels();
      for (size_t k = 0; k < kernels.size(); ++k) {
        int index = kernels[k]->findShapeVar(name);
        if (index < 0) continue;
        const rt::ShapeVarSpec &s = kernels[k]->shapeVars[static_cast<size_t>(index)];
        if (s.fromStride) {
          diags.report(DiagKind::LibraryShapeVarSource, spec.variants[v].range, name,
                       "variant '" + spec.variants[v].name + "' reads it from a stride; the dispatcher reads dims only");
          continue;
        }
        int param = s.param < 0 ? -1 : params[v].kernelArgs[k][static_cast<size_t>(s.param)];
        if (param < 0) continue;   // given by the caller, or read from a workspace (sized from the others)
        if (definedBy == SIZE_MAX) {
          source.param = param;
          source.dim = s.dim;
          definedBy = v;
        } else if (source.param != param || source.dim != s.dim) {
          diags
              .report(DiagKind::LibraryShapeVarSource, spec.variants[v].range, name,
                      "variant '" + spec.variants[v].name + "' reads it from dim " + std::to_string(s.dim) +
                          " of parameter " + std::to_string(param) + ", variant '" + spec.variants[definedBy].name +
                          "' from dim " + std::to_string(source.dim) + " of parameter " + std::to_string(source.param))
              .note(spec.variants[definedBy].range, "'" + spec.variants[definedBy].name + "' is declared here");
        }
        break;   // the variant's first kernel that reads it; the later ones check their arguments against its value
      }
    }
    out.push_back(source);
  }
  // A workspace is sized at dispatch from its dims: shape variables of the library and the compile-time
  // parameters of the first kernel that declares it (the runtime's loader reads the same).
  for (size_t v = 0; v < variants.size(); ++v)
    for (size_t wi = 0; wi < params[v].workspace.size(); ++wi) {
      const rt::ParamSpec *w = params[v].workspace[wi];
      const rt::KernelSpec *owner = variants[v].kernels()[params[v].workspaceOwner[wi]];
      for (const rt::Expr &dim : w->dims)
        for (const std::string &n : dim.names()) {
          bool known = std::any_of(out.begin(), out.end(), [&](const ShapeVarSource &x) { return x.name == n; }) ||
                       owner->findCtParam(n);
          if (!known)
            diags.report(DiagKind::LibraryVariantKernels, spec.variants[v].range, spec.variants[v].name,
                         "workspace '" + w->name + "' has dim '" + dim.text() + "', and '" + n +
                             "' is neither a shape variable of the library nor a compile-time parameter");
        }
    }
  if (diags.errorCount() != before) return std::nullopt;
  return out;
}

namespace {

class TableChecker {
public:
  TableChecker(const LibrarySpec &spec, const std::vector<BuiltVariant> &variants,
               const std::vector<ShapeVarSource> &shapeVars, SourceManager &sources, DiagnosticEngine &diags,
               unsigned timeoutMs)
      : spec_(spec), variants_(variants), sources_(sources), diags_(diags), timeoutMs_(timeoutMs) {
    for (const ShapeVarSource &s : shapeVars) {
      names_.push_back(s.name);
      vars_.push_back(z3_.bv_const(s.name.c_str(), 64));
    }
  }

  void run() {
    z3::expr domain = z3_.bool_val(true);
    for (const z3::expr &v : vars_)
      domain = domain && v >= z3_.bv_val(0, 64) && v <= z3_.bv_val(int64_t{2147483647}, 64);
    if (spec_.domain.valid()) {
      GuardToZ3 t(z3_, [&](const std::string &n) { return shapeVar(n); });
      auto d = t.truth(spec_.domain);
      if (!d) {
        diags_.report(DiagKind::LibraryBadGuard, spec_.domainRange, "domain",
                      "'" + t.unresolved() + "' is not a shape variable of the library");
        return;
      }
      domain = domain && *d;
    }
    // Guards.
    std::vector<z3::expr> guards;
    for (size_t i = 0; i < spec_.entries.size(); ++i) {
      GuardToZ3 t(z3_, [&](const std::string &n) { return shapeVar(n); });
      auto g = t.truth(spec_.entries[i].guard);
      if (!g) {
        diags_.report(DiagKind::LibraryBadGuard, spec_.entries[i].range, "guard",
                      "'" + t.unresolved() + "' is not a shape variable of the library (" + namesText() + ")");
        guards.push_back(z3_.bool_val(false));
        continue;
      }
      guards.push_back(*g);
    }
    if (diags_.hasErrors()) return;
    std::vector<std::string> targets = spec_.targets;
    if (targets.empty())
      for (const BuiltVariant &v : variants_)
        if (std::find(targets.begin(), targets.end(), v.arch()) == targets.end())
          targets.push_back(v.arch());

    // Shadowing: reachable on no target where the entry's variant runs.
    std::vector<bool> reachable(spec_.entries.size(), false), runsSomewhere(spec_.entries.size(), false);
    for (const std::string &target : targets) {
      z3::expr earlier = z3_.bool_val(false);
      std::vector<size_t> eligible;
      for (size_t i = 0; i < spec_.entries.size(); ++i)
        if (runsOn(variants_[spec_.entries[i].variant].arch(), target)) eligible.push_back(i);
      std::map<size_t, std::vector<int64_t>> witness = witnesses(eligible);
      for (size_t i : eligible) {
        runsSomewhere[i] = true;
        z3::expr reach = domain && !earlier && guards[i];
        std::optional<z3::check_result> sat;
        if (auto w = witness.find(i); w != witness.end() && holdsAt(reach, w->second))
          sat = z3::sat;
        else
          sat = check(reach, "whether entry " + std::to_string(i) + " is reachable on " + target, i);
        if (!sat) return;
        if (*sat == z3::sat) {
          reachable[i] = true;
          checkRequires(i, reach, target);
        }
        earlier = earlier || guards[i];
      }
      // Gap: a domain shape no eligible entry accepts.
      z3::solver s = solver();
      s.add(domain && !earlier);
      auto r = s.check();
      if (r == z3::unknown) {
        diags_.report(DiagKind::LibraryUnproven, spec_.entries.back().range,
                      "whether every shape is served on " + target, s.reason_unknown());
        return;
      }
      if (r == z3::sat) {
        const EntrySpec &last = spec_.entries.back();
        const VariantSpec &fallback = spec_.variants[last.variant];
        auto d = diags_.report(DiagKind::LibraryGap, last.range, target, shapeOf(smallModel(s)));
        if (!runsOn(variants_[last.variant].arch(), target))
          d.note(fallback.range, "the fallback '" + fallback.name + "' is built for " +
                                     variants_[last.variant].arch() + ", which does not run on " + target);
      }
    }
    for (size_t i = 0; i < spec_.entries.size(); ++i) {
      const EntrySpec &e = spec_.entries[i];
      if (e.fallback || reachable[i] || !runsSomewhere[i]) continue;
      auto d = diags_.report(DiagKind::LibraryEntryShadowed, e.range, i, spec_.variants[e.variant].name,
                             "every shape its guard accepts is taken by an earlier entry");
      for (size_t j = 0; j < i; ++j) {
        z3::solver s = solver();
        s.add(domain && guards[j] && guards[i]);
        if (s.check() == z3::sat)
          d.note(spec_.entries[j].range, "entry " + std::to_string(j) + " ('" +
                                             spec_.variants[spec_.entries[j].variant].name + "') accepts " +
                                             shapeOf(smallModel(s)) + " first");
      }
    }
  }

private:
  // Concrete shapes that reach the entries: a grid of round and ragged values of each shape variable (at most
  // kWitnessShapes shapes in all) dispatched through the eligible entries' guards in order, as the runtime
  // does (rt::ExprProgram).  The first shape found for entry i proves it reachable without a solver query -
  // the one that can run out of time on guards with products of cdivs - once holdsAt has confirmed it on the
  // query.
  static constexpr size_t kWitnessShapes = 100000;
  std::map<size_t, std::vector<int64_t>> witnesses(const std::vector<size_t> &eligible) const {
    static constexpr int64_t kValues[] = {1,    2,    3,    7,    8,    16,    17,    24,    32,    33,    48,    64,
                                          65,   100,  128,  129,  200,  256,   257,   320,   321,   384,   500,   512,
                                          513,  1000, 1024, 1280, 1536, 2000,  2048,  2176,  2560,  3000,  4096,  4097,
                                          5000, 6144, 8192, 8448, 10000, 11264, 12288, 16384, 32768, 65536};
    constexpr size_t kCount = sizeof(kValues) / sizeof(kValues[0]);
    std::map<size_t, std::vector<int64_t>> out;
    if (names_.empty()) return out;
    size_t per = kCount;   // values per shape variable: per^vars <= kWitnessShapes
    while (per > 1 && std::pow(static_cast<double>(per), static_cast<double>(names_.size())) > kWitnessShapes) --per;
    // The guards as the runtime's dispatcher evaluates them (slot i = shape variable i); run() has already
    // rejected a guard or domain naming anything else.
    std::vector<rt::ExprProgram> guard;
    for (size_t i : eligible) guard.push_back(rt::ExprProgram::compile(spec_.entries[i].guard, names_));
    std::optional<rt::ExprProgram> domain;
    if (spec_.domain.valid()) domain = rt::ExprProgram::compile(spec_.domain, names_);
    auto holds = [](const rt::ExprProgram &p, const std::vector<int64_t> &shape) {
      int64_t r = 0;
      return p.evaluate(shape.data(), r) && r != 0;   // overflow or division by zero: no witness here
    };
    std::vector<size_t> digit(names_.size(), 0);
    std::vector<int64_t> shape(names_.size());
    for (;;) {
      for (size_t v = 0; v < names_.size(); ++v)   // per values spread over the list, both ends included
        shape[v] = kValues[digit[v] * (kCount - 1) / std::max<size_t>(per - 1, 1)];
      if (!domain || holds(*domain, shape))
        for (size_t g = 0; g < guard.size(); ++g)
          if (holds(guard[g], shape)) {
            out.emplace(eligible[g], shape);
            break;
          }
      size_t v = 0;
      while (v < digit.size() && ++digit[v] == per) digit[v++] = 0;
      if (v == digit.size()) break;
    }
    return out;
  }

  // Whether `e` is true at the shape `values` (Z3's own evaluation of the query: the witness is trusted only
  // for the question as the solver would have been asked it).
  bool holdsAt(const z3::expr &e, const std::vector<int64_t> &values) {
    z3::expr_vector from(z3_), to(z3_);
    for (size_t v = 0; v < vars_.size(); ++v) {
      from.push_back(vars_[v]);
      to.push_back(z3_.bv_val(values[v], 64));
    }
    return z3::expr(e).substitute(from, to).simplify().is_true();
  }

  std::optional<z3::expr> shapeVar(const std::string &name) {
    for (size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == name) return vars_[i];
    return std::nullopt;
  }

  std::string namesText() const {
    std::string t;
    for (const std::string &n : names_) t += (t.empty() ? "" : ", ") + n;
    return t.empty() ? "none" : t;
  }

  // Each query is bounded in time and in Z3's resource count (rlimit: deterministic, and also counted while
  // Z3 bit-blasts a large multiplication, where the timer is not looked at).
  z3::solver solver() {
    z3::solver s(z3_);
    z3::params p(z3_);
    p.set("timeout", timeoutMs_);
    p.set("rlimit", static_cast<unsigned>(std::min<uint64_t>(uint64_t{timeoutMs_} * 20000, 4000000000u)));
    s.set(p);
    return s;
  }

  // `at`: the entry the question is about (its guard is where the diagnostic points).
  std::optional<z3::check_result> check(const z3::expr &e, const std::string &what, size_t at) {
    z3::solver s = solver();
    s.add(e);
    z3::check_result r = s.check();
    if (r == z3::unknown) {
      diags_.report(DiagKind::LibraryUnproven, spec_.entries[at].range, what, s.reason_unknown());
      return std::nullopt;
    }
    return r;
  }

  // A model of `s` (which is satisfiable) with small values where there is one: shape variables bounded by
  // 16, then 256, 4096, 65536, 2^20; the first bound that keeps it satisfiable gives the counterexample
  // (a shape of a few thousand reads better than one near 2^31).
  z3::model smallModel(z3::solver &s) {
    z3::model model = s.get_model();   // the caller's check was sat
    for (int64_t bound : {int64_t{16}, int64_t{256}, int64_t{4096}, int64_t{65536}, int64_t{1} << 20}) {
      s.push();
      for (const z3::expr &v : vars_)
        s.add(v <= z3_.bv_val(bound, 64));
      bool found = s.check() == z3::sat;
      if (found)
        model = s.get_model();
      s.pop();
      if (found)
        break;
    }
    return model;
  }

  std::string shapeOf(const z3::model &m) {
    std::string t;
    for (size_t i = 0; i < vars_.size(); ++i) {
      z3::expr v = m.eval(vars_[i], true);
      int64_t value = 0;
      uint64_t bits = 0;
      if (v.is_numeral_u64(bits)) value = static_cast<int64_t>(bits);
      t += (t.empty() ? "" : ", ") + names_[i] + " = " + std::to_string(value);
    }
    return t;
  }

  // The location of a manifest "loc" ("dir/k.cake:3:12"), loading the file into the source manager.
  SourceRange locate(const std::string &loc) {
    size_t c2 = loc.rfind(':');
    size_t c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : loc.rfind(':', c2 - 1);
    if (c1 == std::string::npos) return {};
    std::string path = loc.substr(0, c1);
    uint32_t line = 0, column = 0;
    try {
      line = static_cast<uint32_t>(std::stoul(loc.substr(c1 + 1, c2 - c1 - 1)));
      column = static_cast<uint32_t>(std::stoul(loc.substr(c2 + 1)));
    } catch (...) {
      return {};
    }
    uint32_t file = 0;
    if (auto it = files_.find(path); it != files_.end()) {
      file = it->second;
    } else {
      std::ifstream in(path, std::ios::binary);
      if (!in) return {};
      std::stringstream text;
      text << in.rdbuf();
      file = sources_.addBuffer(path, text.str());
      files_[path] = file;
    }
    std::string_view text = sources_.text(file);
    size_t offset = 0;
    for (uint32_t l = 1; l < line && offset < text.size(); ++offset)
      if (text[offset] == '\n') ++l;
    offset = std::min<size_t>(offset + column - 1, text.size());
    return {{file, static_cast<uint32_t>(offset)}, static_cast<uint32_t>(offset + 1)};
  }

  void checkRequires(size_t entry, const z3::expr &reach, const std::string &target) {
    const BuiltVariant &v = variants_[spec_.entries[entry].variant];
    for (const rt::KernelSpec *kernel : v.kernels())
      checkRequires(entry, reach, target, *kernel);
  }

  void checkRequires(size_t entry, const z3::expr &reach, const std::string &target, const rt::KernelSpec &k) {
    for (const rt::RequireSpec &r : k.requirements) {
      GuardToZ3 t(z3_, [&](const std::string &n) -> std::optional<z3::expr> {
        if (auto s = shapeVar(n)) return s;
        if (const int64_t *c = k.findCtParam(n)) return z3_.bv_val(static_cast<int64_t>(*c), 64);
        return std::nullopt;
      });
      auto clause = t.truth(r.expr);
      if (!clause) continue;   // names another argument: the caller's contract
      z3::solver s = solver();
      s.add(reach && !*clause);
      z3::check_result result = s.check();
      if (result == z3::unknown) {
        diags_.report(DiagKind::LibraryUnproven, spec_.entries[entry].range,
                      "whether entry " + std::to_string(entry) + " respects requires(" + r.text + ")",
                      s.reason_unknown());
        continue;
      }
      if (result != z3::sat) continue;
      const EntrySpec &e = spec_.entries[entry];
      const std::string &variant = spec_.variants[e.variant].name;
      std::string shape = shapeOf(smallModel(s));
      if (e.fallback) {
        auto d = diags_.report(DiagKind::LibraryGap, e.range, target, shape);
        d.note(spec_.variants[e.variant].range, "the fallback '" + variant + "' refuses it: requires(" + r.text + ")");
        if (SourceRange at = locate(r.loc); at.valid()) d.note(at, "the clause of '" + variant + "'");
        continue;
      }
      auto d = diags_.report(DiagKind::LibraryGuardAdmitsRefused, e.range, entry, variant, shape, r.text);
      if (SourceRange at = locate(r.loc); at.valid()) d.note(at, "the clause of '" + variant + "'");
      d.hint("add the clause to the guard (compile-time parameters as numbers), or narrow the domain");
    }
  }

  const LibrarySpec &spec_;
  const std::vector<BuiltVariant> &variants_;
  SourceManager &sources_;
  DiagnosticEngine &diags_;
  unsigned timeoutMs_;
  z3::context z3_;
  std::vector<std::string> names_;
  std::vector<z3::expr> vars_;
  std::map<std::string, uint32_t> files_;
};

}   // namespace

void checkDispatchTable(const LibrarySpec &spec, const std::vector<BuiltVariant> &variants,
                        const std::vector<ShapeVarSource> &shapeVars, SourceManager &sources, DiagnosticEngine &diags,
                        unsigned timeoutMs) {
  TableChecker(spec, variants, shapeVars, sources, diags, timeoutMs).run();
}

}   // namespace cake::library
