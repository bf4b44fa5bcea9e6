// The obligation families of the "local" verifier group: named barriers, wgmma and proxies, resources
// and SIMT bounds.  Each family lives in its own file (NamedBarriers.cpp, WgmmaProxies.cpp, CpAsyncGroups.cpp,
// Resources.cpp, SimtBounds.cpp) whose header comment explains its algorithm.  They read the typed AST and
// KernelInfo of one kernel and report through the DiagnosticEngine; the Z3-backed ones go through
// VerifyContext (src/verify/VerifyContext.h).
#pragma once
#include "frontend/AST.h"
#include "frontend/KernelInfo.h"
#include "support/Arch.h"
#include "support/Diagnostics.h"

namespace cake {

struct LocalFamilyInput {
  const Kernel &kernel;
  const KernelInfo &info;
  Arch arch;
  DiagnosticEngine &diags;
};

void verifyNamedBarriers(const LocalFamilyInput &in);
void verifyWgmmaAndProxies(const LocalFamilyInput &in);
void verifyResources(const LocalFamilyInput &in);

} // namespace cake
