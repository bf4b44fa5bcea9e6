// The cost stage's entry point (see CostModel.h).
#include "cost/CostModel.h"

#include "cost/ShapeBinding.h"
#include "cost/WorkCounter.h"

namespace cake::cost {

std::optional<Estimate> estimateKernel(const Kernel &kernel, const KernelInfo &info, const Machine &machine,
                                       const EstimateOptions &options, DiagnosticEngine &diags) {
  std::optional<ShapeBinding> binding = bindShape(kernel, info, options.shape, machine.sms, diags);
  if (!binding) return std::nullopt;
  Occupancy occ = computeOccupancy(kernel, info, machine, options.registersPerThread, options.registerCap);
  if (occ.blocksPerSm == 0) {
    diags.report(DiagKind::KernelDoesNotFit, kernel.nameRange, kernel.name, machine.name, occ.whyNot);
    return std::nullopt;
  }
  WorkProfile profile = countWork(kernel, info, *binding);
  profile.registersPerThread = occ.registersPerThread;
  profile.blockRegisters = occ.blockRegisters;
  profile.registersFromRoles = occ.registersFromRoles;
  return predictTime(profile, occ, machine);
}

std::vector<Estimate> estimateModule(const Module &module, const SemaResult &sema, const Machine &machine,
                                     const EstimateOptions &options, DiagnosticEngine &diags) {
  std::vector<Estimate> out;
  if (!machine.runs(sema.arch)) {
    diags.report(DiagKind::MachineCannotRun, module.targetRange, machine.name, archName(sema.arch));
    return out;
  }
  std::vector<const Kernel *> kernels;
  for (const auto &k : module.kernels) kernels.push_back(k.get());
  bool ok = true;
  for (const std::string &name : unknownShapeNames(kernels, options.shape)) {
    diags.report(DiagKind::EstimateUnknownShapeVar, SourceRange{}, name);
    ok = false;
  }
  if (!ok) return out;
  for (const Kernel *k : kernels) {
    const KernelInfo *info = sema.kernelInfo(k);
    if (!info) continue;
    if (std::optional<Estimate> e = estimateKernel(*k, *info, machine, options, diags)) out.push_back(std::move(*e));
  }
  if (diags.hasErrors()) out.clear();
  return out;
}

std::optional<KernelWork> countKernel(const Kernel &kernel, const KernelInfo &info, const Machine &machine,
                                      const std::map<std::string, int64_t> &shape, std::string *why,
                                      CountMode mode) {
  SourceManager none;
  DiagnosticEngine quiet(none, 0);
  std::optional<ShapeBinding> binding = bindShape(kernel, info, shape, machine.sms, quiet);
  if (!binding) {
    if (why && !quiet.diagnostics().empty()) *why = quiet.diagnostics().front().message;
    return std::nullopt;
  }
  KernelWork w;
  w.occupancy = computeOccupancy(kernel, info, machine);
  if (w.occupancy.blocksPerSm == 0) {
    if (why) *why = w.occupancy.whyNot;
    return std::nullopt;
  }
  w.profile = countWork(kernel, info, *binding, mode);
  w.profile.registersPerThread = w.occupancy.registersPerThread;
  w.profile.blockRegisters = w.occupancy.blockRegisters;
  w.profile.registersFromRoles = w.occupancy.registersFromRoles;
  return w;
}

} // namespace cake::cost
