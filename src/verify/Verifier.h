// Verifier: proves the kernel's synchronisation and resource obligations with Z3 (docs/verifier.md).
//
// verifyModule() runs, for every kernel of a module that sema accepted, the list of obligation families in
// Verifier.cpp (mbarrier protocol, ring buffers, deadlock freedom, named barriers, wgmma/proxy fences,
// cp.async groups, resources, SIMT bounds).  Each obligation ends in exactly one of three ways:
//   proven    - holds for every iteration and every shape the kernel's requires(...) allows;
//   failed    - refuted: a diagnostic at the operation that goes wrong, with the counterexample as notes;
//   unproven  - neither: a diagnostic (E0601 / E0602 on timeout) saying why.  Never silently passed.
// --verify-only succeeds only when failed == unproven == 0.
#pragma once
#include "frontend/AST.h"
#include "frontend/Sema.h"
#include "support/Diagnostics.h"

#include <cstdint>

namespace cake {

struct RuleSet;   // verify/RuleSet.h

struct VerifyOptions {
  unsigned timeoutMs = 2000;        // per Z3 query (--verify-timeout=MS)
  int64_t maxSimulatedTrips = 64;   // largest loop trip count the sync simulation enumerates explicitly
  const RuleSet *rules = nullptr;   // --rules FILE: obligations written as data (Rules.cpp), checked last
};

struct VerifyResult {
  unsigned proven = 0;
  unsigned failed = 0;
  unsigned unproven = 0;
  bool allProven() const { return failed == 0 && unproven == 0; }
  VerifyResult &operator+=(const VerifyResult &o) {
    proven += o.proven;
    failed += o.failed;
    unproven += o.unproven;
    return *this;
  }
};

VerifyResult verifyModule(const Module &module, const SemaResult &sema, const VerifyOptions &options,
                          DiagnosticEngine &diags);

} // namespace cake
