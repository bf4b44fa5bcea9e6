// Shared helpers of the cost-model unit tests (tests/unit/test_cost_*.cpp): analyse a CAKE source (parse +
// sema with -D values), load a machine description from machines/, count a kernel at a shape.
#pragma once
#include "cost/CostModel.h"
#include "cost/Machine.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"

#include <doctest/doctest.h>

#include <fstream>
#include <memory>
#include <sstream>

namespace cake::costtest {

struct Analysed {
  SourceManager sources;
  DiagnosticEngine diags{sources};
  Ptr<Module> module;
  SemaResult sema;
  const Kernel *kernel(size_t i = 0) const { return module->kernels.at(i).get(); }
  const KernelInfo &info(size_t i = 0) const { return *sema.kernelInfo(kernel(i)); }
};

inline std::unique_ptr<Analysed> analyse(const std::string &text, std::map<std::string, int64_t> defines = {},
                                         std::optional<Arch> arch = std::nullopt) {
  auto a = std::make_unique<Analysed>();
  uint32_t file = a->sources.addBuffer("test.cake", text);
  a->module = parseModule(a->sources, file, a->diags);
  REQUIRE(a->module);
  SemaOptions options;
  options.defines = std::move(defines);
  options.archOverride = arch;
  a->sema = analyzeModule(*a->module, options, a->diags);
  std::ostringstream diags;
  a->diags.renderText(diags);
  REQUIRE_MESSAGE(a->sema.ok, diags.str());
  return a;
}

inline std::string readSample(const std::string &name) {
  std::ifstream in(std::string(CAKE_SOURCE_DIR) + "/samples/" + name);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline cost::Machine machine(const std::string &name = "h200") {
  cost::MachineLoadResult r = cost::loadMachineFile(std::string(CAKE_SOURCE_DIR) + "/machines/" + name + ".json");
  REQUIRE_MESSAGE(r.machine, r.error);
  return *r.machine;
}

inline cost::KernelWork count(const Analysed &a, const std::map<std::string, int64_t> &shape, size_t kernel = 0,
                              const cost::Machine &m = machine(),
                              cost::CountMode mode = cost::CountMode::Summarised) {
  std::string why;
  std::optional<cost::KernelWork> w = cost::countKernel(*a.kernel(kernel), a.info(kernel), m, shape, &why, mode);
  REQUIRE_MESSAGE(w, why);
  return *w;
}

} // namespace cake::costtest
