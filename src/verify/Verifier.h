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
#include <memory>

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

// What the kernels verified through it share: one Z3 context and its plain solver (verify/VerifyContext.h).
// Making a Z3 context costs ~7 ms and deleting it ~7 ms, several times what a trivial kernel's proofs cost, so
// a caller that verifies many modules in a row (a sweep's worker thread, one module per variant) passes the
// same session to each; the queries proven for one module are forgotten at the start of the next, so that
// a long run's memory stays that of one module.  A session serves one thread at a time.
struct VerifySession;
struct VerifySessionDeleter {
  void operator()(VerifySession *session) const;
};
using VerifySessionPtr = std::unique_ptr<VerifySession, VerifySessionDeleter>;
VerifySessionPtr makeVerifySession();

// Without `session`, a session of its own for this module.
VerifyResult verifyModule(const Module &module, const SemaResult &sema, const VerifyOptions &options,
                          DiagnosticEngine &diags, VerifySession *session = nullptr);

} // namespace cake
