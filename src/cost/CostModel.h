// CostModel: the cost stage's entry point - estimate every kernel of an analysed module at one shape on
// one machine.  Per kernel: bind the shape (ShapeBinding), count the work (WorkCounter), compute the
// occupancy (Occupancy), predict the time (TimeModel).  Problems are diagnostics: E0801-E0804 for the shape,
// E0806 when the machine cannot run the target, E0809 when no block fits on an SM.
#pragma once
#include "cost/Machine.h"
#include "cost/TimeModel.h"
#include "cost/WorkCounter.h"
#include "frontend/AST.h"
#include "frontend/Sema.h"
#include "support/Diagnostics.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::cost {

struct EstimateOptions {
  std::map<std::string, int64_t> shape;          // --shape
  std::optional<int64_t> registersPerThread;     // from a ptxas report, when the caller has one
  std::optional<int64_t> registerCap;            // --maxrregcount: bounds the register estimate
};

// One Estimate per kernel, in file order; empty (with diagnostics) on failure.
std::vector<Estimate> estimateModule(const Module &module, const SemaResult &sema, const Machine &machine,
                                     const EstimateOptions &options, DiagnosticEngine &diags);

// One kernel's estimate at options.shape (names the kernel does not use are ignored: a library prices each
// kernel of a sequence at the library's shape); nullopt after diagnostics (E0801, E0803, E0804, E0809).
// The caller checks that `machine` runs the module's arch.
std::optional<Estimate> estimateKernel(const Kernel &kernel, const KernelInfo &info, const Machine &machine,
                                       const EstimateOptions &options, DiagnosticEngine &diags);

// The work counting and occupancy of one kernel without diagnostics (calibration, benchmarks).  nullopt when
// the shape does not bind or no block fits.
struct KernelWork {
  WorkProfile profile;
  Occupancy occupancy;
};
std::optional<KernelWork> countKernel(const Kernel &kernel, const KernelInfo &info, const Machine &machine,
                                      const std::map<std::string, int64_t> &shape, std::string *why = nullptr,
                                      CountMode mode = CountMode::Summarised);

} // namespace cake::cost
