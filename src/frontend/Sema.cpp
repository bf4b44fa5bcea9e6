// Sema driver: the passes over a module, in order.
//
//   1. target        the module's target / --arch (E0401)
//   2. per kernel    (a) compile-time parameters with defaults and -D overrides; then every use of a
//                        type parameter is replaced by its type (SemaTypeParams.cpp)
//                    (b) parameters: types, shape variables, then their attributes
//                    (c) kernel attributes: requires, grid, threads, cluster
//                    (d) the body: statements, declarations, roles, operations (one walk)
//                    (e) roles across the kernel: overlaps, register budget
//                    (f) shared-memory layout and its limit
//                    (g) shared arrays, mbarriers and named barriers that nothing names (E0375, a warning)
//   3. -D            defines that no kernel declares (E0323)
// Everything is annotated in place; per-kernel facts go to SemaResult::kernels.  Errors never stop the
// walk (failed sub-expressions carry the error type) except at the diagnostics engine's error limit.
#include "frontend/SemaImpl.h"

#include <map>

namespace cake {

Sema::Sema(Module &m, const SemaOptions &opts, DiagnosticEngine &diags, SemaResult &result)
    : module_(m), opts_(opts), diags_(diags), result_(result), types_(*result.types), builtins_(*result.builtins) {}

void Sema::run() {
  analyzeTarget();
  // Kernel names are PTX .entry names and manifest keys: two kernels of one name would be two '.entry k'
  // that only ptxas rejects (and --verify-only accepted).
  std::map<std::string, const Kernel *> kernelNames;
  for (auto &k : module_.kernels) {
    if (!k) continue;
    auto [it, inserted] = kernelNames.emplace(k->name, k.get());
    if (!inserted)
      diags_.report(DiagKind::Redefinition, k->nameRange, k->name)
          .note(it->second->nameRange, "previous declaration of kernel '" + k->name + "' is here")
          .hint("kernel names are PTX entry points and must be unique in a file; rename one");
  }
  for (auto &k : module_.kernels) {
    if (!k || diags_.limitReached()) continue;
    analyzeKernel(*k);
  }
  checkUnknownDefines();
}

void Sema::analyzeKernel(Kernel &k) {
  KernelInfo &info = result_.kernels[&k];
  info.kernel = &k;
  kernel_ = &k;
  info_ = &info;
  roleIndex_.clear();
  mbarrierDecls_.clear();
  referenced_.clear();
  typeParams_.clear();
  k.shapeVars.clear();

  ScopeGuard kernelScope(*this, ScopeKind::Kernel);
  kernelScope_ = &kernelScope.scope();
  analyzeCtParams(k);
  substituteTypeParams(k);
  analyzeParams(k);
  analyzeKernelAttrs(k);
  {
    ScopeGuard bodyScope(*this, ScopeKind::KernelBody);
    bodyScope_ = &bodyScope.scope();
    if (k.body) analyzeBlock(*k.body, StmtContext{}, /*newScope=*/false);
    bodyScope_ = nullptr;
  }
  checkRoles(k);
  layoutSharedMemory(k);
  warnUnusedDeclarations(info);
  kernelScope_ = nullptr;
  kernel_ = nullptr;
  info_ = nullptr;
}

SemaResult analyzeModule(Module &m, const SemaOptions &opts, DiagnosticEngine &diags) {
  SemaResult result;
  result.types = std::make_shared<TypeContext>();
  result.builtins = std::make_shared<BuiltinTable>();
  // Calls of fns must be expanded first (Inline.h): sema and every later stage see only kernels.
  if (!m.fns.empty() && !m.fnsInlined) CAKE_INTERNAL_ERROR("analyzeModule on a module whose fns are not inlined");
  Sema sema(m, opts, diags, result);
  sema.indexInlineArgChecks();
  sema.run();
  result.ok = !diags.hasErrors();
  return result;
}

} // namespace cake
