// Sema: semantic analysis of a parsed Module.  Resolves names, computes types, evaluates compile-time
// parameters (defaults, then -D overrides), checks kernels' launch clauses, roles, operations, attributes,
// and arch availability.  It annotates the AST in place (Expr::type, NameExpr::decl, Decl::type,
// CtParam::value, Kernel::shapeVars) and records per-kernel facts in KernelInfo for later stages.
#pragma once
#include "frontend/AST.h"
#include "frontend/Builtins.h"
#include "frontend/KernelInfo.h"
#include "frontend/Types.h"
#include "support/Arch.h"
#include "support/Diagnostics.h"

#include <map>
#include <memory>
#include <string>

namespace cake {

class TypeContext;

struct SemaOptions {
  std::optional<Arch> archOverride;               // --arch; otherwise the module's target
  std::map<std::string, int64_t> defines;         // -D NAME=VALUE (apply to every kernel that has NAME)
  std::map<std::string, std::string> typeDefines; // -D NAME=TYPE for type parameters (a name is in one map only)
};

struct SemaResult {
  Arch arch = Arch::SM80;
  std::shared_ptr<TypeContext> types;            // owns every Type the AST points at
  bool ok = false;                                // no errors
  std::shared_ptr<const BuiltinTable> builtins;   // owns the builtin Decls NameExpr::decl may point at
  std::map<const Kernel *, KernelInfo> kernels;   // per-kernel facts (launch, roles, shared layout, ...)
  const KernelInfo *kernelInfo(const Kernel *k) const {
    auto it = kernels.find(k);
    return it == kernels.end() ? nullptr : &it->second;
  }
};

SemaResult analyzeModule(Module &m, const SemaOptions &opts, DiagnosticEngine &diags);

} // namespace cake
