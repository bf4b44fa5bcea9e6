// The driver's cost-model step: machine lookup, single estimates, sweeps (see EstimateCommand.h).
#include "driver/EstimateCommand.h"

#include "codegen/CodeGen.h"
#include "cost/Report.h"
#include "cost/Roofline.h"
#include "cost/Timeline.h"
#include "cost/ShapeBinding.h"
#include "frontend/Inline.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "support/ProgressBar.h"
#include "verify/Verifier.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <exception>
#include <mutex>
#include <iostream>
#include <set>
#include <thread>

namespace cake {

namespace {

std::optional<cost::Machine> resolveMachine(const DriverOptions &opts, Arch arch, DiagnosticEngine &diags) {
  cost::MachineLoadResult loaded = cost::findMachine(opts.machine, arch);
  if (loaded.machine) return loaded.machine;
  if (opts.machine.empty())
    diags.report(DiagKind::NotAvailableYet, SourceRange{}, "--estimate for " + std::string(archName(arch)),
                 loaded.error + "; give one with --machine NAME|PATH (machines/*.json)");
  else
    diags.report(DiagKind::MachineUnavailable, SourceRange{}, opts.machine, loaded.error);
  return std::nullopt;
}

}   // namespace

std::string firstError(const DiagnosticEngine &diags, std::string *code) {
  for (const Diagnostic &d : diags.diagnostics()) {
    if (d.severity != Severity::Error && d.severity != Severity::Fatal) continue;
    if (code) *code = std::string(diagInfo(d.kind).code);
    std::string where;
    if (d.range.valid()) {
      LineCol lc = diags.sources().lineCol(d.range.begin);
      where = "line " + std::to_string(lc.line) + ": ";
    }
    return where + d.message;
  }
  if (code) *code = "?";
  return "rejected without a diagnostic";
}

namespace {

// Code generation to PTX in memory (no ptxas): the first codegen error inside each kernel, by kernel name
// ("line 12: code generation cannot lower ... [E0707]"); empty when everything lowers.
std::map<std::string, std::string> compileProblems(const Module &module, const SemaResult &sema,
                                                   const SourceManager &sources) {
  DiagnosticEngine scratch(sources, 0);
  CodegenResult lowered = generatePtx(module, sema, sema.arch, scratch);
  std::map<std::string, std::string> out;
  if (lowered.ok) return out;
  for (const Diagnostic &d : scratch.diagnostics()) {
    if (d.severity != Severity::Error && d.severity != Severity::Fatal) continue;
    const Kernel *owner = nullptr;
    for (const auto &k : module.kernels)
      if (d.range.valid() && d.range.begin.offset >= k->range.begin.offset && d.range.begin.offset < k->range.end)
        owner = k.get();
    std::string where;
    if (d.range.valid()) where = "line " + std::to_string(sources.lineCol(d.range.begin).line) + ": ";
    std::string text = where + d.message + " [" + std::string(diagInfo(d.kind).code) + "]";
    if (owner) out.emplace(owner->name, text);
    else for (const auto &k : module.kernels) out.emplace(k->name, text);
  }
  return out;
}

} // namespace

std::unique_ptr<PreparedVariant> prepareVariant(const VariantRequest &request, VerifySession *session) {
  if (request.debugForceInternalError) CAKE_INTERNAL_ERROR("forced by --debug-force-internal-error in a sweep variant");
  auto prepared = std::make_unique<PreparedVariant>();
  prepared->defines = request.defines;
  SourceManager &sources = prepared->sources;
  DiagnosticEngine diags(sources, 1);
  uint32_t file = sources.addBuffer(request.name, request.text);
  prepared->module = parseModule(sources, file, diags);
  auto reject = [&]() {
    prepared->rejection.reason = firstError(diags, &prepared->rejection.code);
    return std::move(prepared);
  };
  if (diags.hasErrors() || !prepared->module) return reject();
  Module &module = *prepared->module;
  if (std::optional<std::string> missing = keepOnlyKernels(module, request.kernels)) {
    diags.report(DiagKind::LibraryUnknownKernel, SourceRange{}, request.name,
                 "the source has no kernel '" + *missing + "' (its kernels: " + kernelNames(module) + ")");
    return reject();
  }
  if (!inlineFunctions(module, sources, diags) || diags.hasErrors()) return reject();
  SemaOptions semaOptions;
  semaOptions.archOverride = request.arch;
  semaOptions.defines = request.defines;
  semaOptions.typeDefines = request.typeDefines;
  prepared->sema = analyzeModule(module, semaOptions, diags);
  if (diags.hasErrors() || !prepared->sema.ok) return reject();
  if (request.verify) {
    VerifyOptions verifyOptions;
    if (request.verifyTimeoutMs) verifyOptions.timeoutMs = *request.verifyTimeoutMs;
    VerifyResult verified = verifyModule(module, prepared->sema, verifyOptions, diags, session);
    if (!verified.allProven() || diags.hasErrors()) return reject();
  }
  DiagnosticEngine codegenDiags(sources, 1);
  if (!generatePtx(module, prepared->sema, prepared->sema.arch, codegenDiags).ok)
    prepared->codegenProblem = firstError(codegenDiags, &prepared->codegenCode);
  return prepared;
}

cost::VariantOutcome analyzeVariant(const VariantRequest &request, const cost::Machine &machine,
                                    const std::map<std::string, int64_t> &shape, VerifySession *session) {
  std::unique_ptr<PreparedVariant> prepared = prepareVariant(request, session);
  cost::VariantOutcome outcome = prepared->rejection;
  outcome.defines = request.defines;
  if (!outcome.ok()) return outcome;
  DiagnosticEngine diags(prepared->sources, 1);
  cost::EstimateOptions options;
  options.shape = shape;
  options.registerCap = request.registerCap;
  outcome.estimates = cost::estimateModule(*prepared->module, prepared->sema, machine, options, diags);
  if (diags.hasErrors() || outcome.estimates.empty()) {
    outcome.reason = firstError(diags, &outcome.code);
    outcome.estimates.clear();
    return outcome;
  }
  // A variant that would not compile is rejected with codegen's first error, not ranked.
  if (!prepared->codegenProblem.empty()) {
    outcome.wouldNotCompile = true;
    outcome.reason = prepared->codegenProblem;
    outcome.code = prepared->codegenCode;
    outcome.estimates.clear();
  }
  return outcome;
}

ExitCode runEstimate(const DriverOptions &opts, const Module &module, const SemaResult &sema,
                     const SourceManager &sources, uint32_t file, DiagnosticEngine &diags, std::ostream &out,
                     std::vector<EstimatePicture> &pictures) {
  // Shape variables are i32 at run time (the runtime refuses larger dims): a shape outside 0..2^31-1
  // cannot be launched, so it gets no prediction.
  bool shapeOk = true;
  for (const auto &[name, value] : opts.shape)
    if (value < 0 || value > INT32_MAX) {
      diags.report(DiagKind::EstimateShapeOutOfRange, SourceRange{}, name, value);
      shapeOk = false;
    }
  if (!shapeOk) return ExitCode::InputErrors;
  std::optional<cost::Machine> machine = resolveMachine(opts, sema.arch, diags);
  if (!machine) return ExitCode::InputErrors;

  if (opts.sweep.empty()) {
    cost::EstimateOptions options;
    options.shape = opts.shape;
    if (opts.maxRegisters) options.registerCap = opts.maxRegisters;
    std::vector<cost::Estimate> estimates = cost::estimateModule(module, sema, *machine, options, diags);
    if (diags.hasErrors()) return ExitCode::InputErrors;
    std::map<std::string, std::string> problems = compileProblems(module, sema, sources);
    for (cost::Estimate &e : estimates)
      if (auto it = problems.find(e.kernel); it != problems.end()) e.compileProblem = it->second;
    if (opts.estimateJson) cost::renderEstimateJson(estimates, opts.shape, out);
    else cost::renderEstimateText(estimates, opts.shape, out);
    if (!opts.rooflinePath.empty()) {
      std::vector<cost::RooflinePoint> points;
      for (const cost::Estimate &e : estimates)
        points.push_back({e.compileProblem.empty() ? e.kernel : e.kernel + " (would not compile)", &e});
      std::string title = std::string(sources.name(file)) + " at " + cost::shapeToString(opts.shape) + " on " +
                          machine->name;
      pictures.push_back({opts.rooflinePath, cost::renderRooflineSvg(*machine, points, title)});
    }
    if (!opts.timelinePath.empty()) {
      std::vector<const cost::Estimate *> drawn;
      for (const cost::Estimate &e : estimates) drawn.push_back(&e);
      std::string title = std::string(sources.name(file)) + " at " + cost::shapeToString(opts.shape) + " on " +
                          machine->name;
      pictures.push_back({opts.timelinePath, cost::renderTimelineSvg(*machine, drawn, title)});
    }
    return ExitCode::Success;
  }

  // --sweep: check the axes against the file's compile-time parameters, then analyse every variant.
  cost::SweepParseResult parsed = cost::parseSweep(opts.sweep);
  if (!parsed.badItem.empty()) {
    diags.report(DiagKind::MalformedSweep, SourceRange{}, parsed.badItem, parsed.why);
    return ExitCode::InputErrors;
  }
  std::set<std::string> ctNames;
  for (const auto &k : module.kernels)
    for (const auto &p : k->ctParams) ctNames.insert(p->name);
  bool ok = true;
  for (const cost::SweepAxis &axis : parsed.axes)
    if (!ctNames.count(axis.name)) {
      diags.report(DiagKind::SweepUnknownParam, SourceRange{}, axis.name);
      ok = false;
    }
  if (!ok) return ExitCode::InputErrors;
  size_t count = cost::sweepSize(parsed.axes);
  if (count > cost::kMaxSweepVariants) {
    diags.report(DiagKind::SweepTooLarge, SourceRange{}, count, cost::kMaxSweepVariants);
    return ExitCode::InputErrors;
  }
  // The shape must suit the file before any variant is tried (unknown names are the user's error, not a
  // property of one variant).
  std::vector<const Kernel *> kernels;
  for (const auto &k : module.kernels) kernels.push_back(k.get());
  for (const std::string &name : cost::unknownShapeNames(kernels, opts.shape)) {
    diags.report(DiagKind::EstimateUnknownShapeVar, SourceRange{}, name);
    ok = false;
  }
  if (!ok) return ExitCode::InputErrors;

  VariantRequest request;
  request.name = std::string(sources.name(file));
  request.text = std::string(sources.text(file));
  request.arch = opts.arch;
  request.verify = !opts.noVerify;
  request.verifyTimeoutMs = opts.verifyTimeoutMs;
  if (opts.maxRegisters) request.registerCap = opts.maxRegisters;
  request.debugForceInternalError = opts.debugForceInternalError;
  const std::vector<std::map<std::string, int64_t>> variants = cost::expandSweep(parsed.axes);
  std::vector<cost::VariantOutcome> outcomes(variants.size());
  std::atomic<size_t> nextVariant{0};
  ProgressBar progress("sweep", variants.size(), opts.progress && ProgressBar::stderrIsTerminal());
  // An exception in a worker (an InternalError, bad_alloc) must not escape its thread (std::terminate): the
  // first one is kept, the other workers stop taking variants, and it is rethrown here after the join, so
  // main reports it as an internal error (exit 4).
  std::mutex failureMutex;
  std::exception_ptr failure;
  auto analyzeSome = [&]() {
    try {
      VerifySessionPtr session = request.verify ? makeVerifySession() : nullptr;
      for (size_t i; (i = nextVariant.fetch_add(1)) < variants.size();) {
        VariantRequest variantRequest = request;
        variantRequest.defines = opts.defines;
        variantRequest.typeDefines = opts.typeDefines;
        for (const auto &[name, value] : variants[i]) {
          variantRequest.defines[name] = value;
          variantRequest.typeDefines.erase(name);
        }
        cost::VariantOutcome outcome = analyzeVariant(variantRequest, *machine, opts.shape, session.get());
        outcome.defines = variants[i];
        outcome.label = cost::variantLabel(parsed.axes, variants[i]);
        outcomes[i] = std::move(outcome);
        progress.advance();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(failureMutex);
      if (!failure) failure = std::current_exception();
      nextVariant.store(variants.size());
    }
  };
  size_t jobs = opts.jobs ? opts.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> helpers;
  for (size_t j = 1; j < std::min(jobs, variants.size()); ++j) helpers.emplace_back(analyzeSome);
  analyzeSome();
  for (std::thread &t : helpers) t.join();
  progress.finish();
  if (failure) std::rethrow_exception(failure);
  // E0815: per kernel, two or more estimated variants that all predict the same time rank nothing.
  std::map<std::string, std::vector<double>> predicted;
  for (const cost::VariantOutcome &o : outcomes)
    for (const cost::Estimate &e : o.estimates) predicted[e.kernel].push_back(e.seconds);
  for (const auto &[kernel, times] : predicted)
    if (times.size() >= 2 && std::all_of(times.begin(), times.end(), [&](double t) { return t == times.front(); }))
      diags.report(DiagKind::SweepPredictionsEqual, SourceRange{}, times.size(),
                   cost::formatSeconds(times.front()) + " for kernel '" + kernel + "'")
          .hint("sweep parameters that change the work, the tiles or the pipeline at this shape, or measure the "
                "variants");
  std::string header = "sweep of " + std::string(sources.name(file)) + " at " + cost::shapeToString(opts.shape) +
                       " on " + machine->name;
  if (opts.estimateJson) cost::renderSweepJson(outcomes, opts.shape, opts.top, out);
  else cost::renderSweepText(outcomes, header, opts.top, out);
  if (!opts.rooflinePath.empty()) {
    // The variants the ranking shows, by rank; the kernel's name leads the label when the file has several.
    std::vector<cost::RankedRow> rows = cost::rankVariants(outcomes);
    if (opts.top && rows.size() > *opts.top) rows.resize(*opts.top);
    std::vector<cost::RooflinePoint> points;
    for (const cost::RankedRow &row : rows)
      points.push_back({kernels.size() > 1 ? row.estimate->kernel + ": " + row.variant->label : row.variant->label,
                        row.estimate});
    pictures.push_back({opts.rooflinePath, cost::renderRooflineSvg(*machine, points, header)});
  }
  if (!opts.timelinePath.empty()) {
    // Each kernel's fastest variant (the first ranked row of the kernel), in the file's kernel order.
    std::vector<cost::RankedRow> rows = cost::rankVariants(outcomes);
    std::vector<const cost::Estimate *> drawn;
    std::string variants;
    for (const Kernel *k : kernels)
      for (const cost::RankedRow &row : rows)
        if (row.estimate->kernel == k->name) {
          drawn.push_back(row.estimate);
          variants += (variants.empty() ? "" : "; ") + row.variant->label;
          break;
        }
    std::string title = std::string(sources.name(file)) + " (fastest variant: " + variants + ") at " +
                        cost::shapeToString(opts.shape) + " on " + machine->name;
    pictures.push_back({opts.timelinePath, cost::renderTimelineSvg(*machine, drawn, title)});
  }
  return ExitCode::Success;
}

} // namespace cake
