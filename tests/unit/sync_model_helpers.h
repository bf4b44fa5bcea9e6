// Shared set-up of the synchronisation-model unit tests (test_verify_syncmodel.cpp,
// test_verify_tile_variants.cpp): a one-kernel CAKE source parsed and analysed, with its slot table and
// agents (SyncModel.h) built.
#pragma once
#include "fragment_diagnostics.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "verify/SyncModel.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace cake::synctest {

struct SyncFixture {
  SourceManager sm;
  DiagnosticEngine diags = fragmentDiagnostics(sm);
  Ptr<Module> module;
  SemaResult sema;
  const KernelInfo *info = nullptr;
  SlotTable slots;
  std::vector<SyncAgent> agents;

  explicit SyncFixture(const std::string &source) {
    module = parseModule(sm, sm.addBuffer("t.cake", source), diags);
    REQUIRE(!diags.hasErrors());
    sema = analyzeModule(*module, SemaOptions{}, diags);
    REQUIRE(sema.ok);
    info = sema.kernelInfo(module->kernels[0].get());
    slots = buildSlots(*info);
    agents = buildAgents(*info);
  }
  const Kernel &kernel() const { return *module->kernels[0]; }
};

} // namespace cake::synctest
