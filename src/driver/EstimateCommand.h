// EstimateCommand: the driver's cost-model step (--estimate, --sweep, --top, --machine, --json).
//
// runEstimate() is called by runDriver() after sema and verification of the input succeeded:
//   1. the machine: --machine NAME|PATH, else the default for the target (machines/*.json); a target with
//      no machine description is E0504, a named one that cannot be loaded E0805;
//   2. without --sweep: estimate every kernel at --shape and print the report (text, or JSON with --json);
//      code generation runs to PTX in memory too, and a kernel it cannot lower says "would not compile"
//      with codegen's first error (JSON: "compiles": false, "compile_error");
//   3. with --sweep: every combination of the swept -D values is analysed again from the source text (parse,
//      sema, verify unless --no-verify, estimate, PTX in memory) in its own diagnostics engine; variants that
//      fail are kept with their first error's code and message (one that codegen cannot lower: "would not
//      compile", JSON "compiles": false), the others are ranked by predicted time (--top N).
//      Variants are independent (each has its own AST, sema, verifier context and diagnostics), so they are
//      analysed on -j N threads (default: one per core), each writing only its own slot of the results:
//      the output is the same for every N.  Each thread verifies its variants in one verifier session (one Z3
//      context), which saves ~14 ms of context set-up and tear-down per variant.
//   4. --roofline FILE.svg: the estimates of step 2 (one point per kernel) or the ranked variants of step 3
//      (the ones the ranking shows, --top N) as a roofline picture (cost/Roofline.h), returned as an
//      EstimatePicture for the driver to write with its other outputs (atomically, never over the input);
//      --timeline FILE.svg likewise: each kernel's pipeline per role as the model sees it (cost/Timeline.h),
//      for the estimates of step 2, or for each kernel's fastest variant of step 3.
// analyzeVariant() is also what `cakec calibrate` uses to estimate each measured kernel.
#pragma once
#include "cost/CostModel.h"
#include "cost/Sweep.h"
#include "driver/Driver.h"
#include "verify/Verifier.h"

#include <iosfwd>
#include <memory>

namespace cake {

// A picture the estimate produced (an SVG), to be written to `path` by the driver.
struct EstimatePicture {
  std::string path;
  std::string contents;
};

ExitCode runEstimate(const DriverOptions &opts, const Module &module, const SemaResult &sema,
                     const SourceManager &sources, uint32_t file, DiagnosticEngine &diags, std::ostream &out,
                     std::vector<EstimatePicture> &pictures);

struct VariantRequest {
  std::string name;                            // file name, for messages
  std::string text;                            // source text
  std::map<std::string, int64_t> defines;
  std::optional<Arch> arch;
  bool verify = true;
  std::optional<unsigned> verifyTimeoutMs;
  std::optional<int64_t> registerCap;               // --maxrregcount: bounds the register estimate
  std::map<std::string, std::string> typeDefines;   // -D NAME=TYPE (type parameters)
  std::vector<std::string> kernels;                 // --kernel: only these kernels (empty: all of the file's)
  bool debugForceInternalError = false;        // testing: raise an InternalError (in the sweep's worker thread)
};

// A variant parsed, inlined, analysed (sema), verified when asked and lowered to PTX in memory, to be estimated
// at any number of shapes (cost::estimateModule / estimateKernel).  `rejection` is set (code, reason) when a
// step before code generation failed; `codegenProblem` when only code generation did (the variant would not
// compile).  The module and sema point into `sources`: a PreparedVariant is not moved, it is held by pointer.
struct PreparedVariant {
  SourceManager sources;
  Ptr<Module> module;
  SemaResult sema;
  std::map<std::string, int64_t> defines;
  cost::VariantOutcome rejection;
  std::string codegenProblem, codegenCode;
  bool ok() const { return rejection.ok(); }
};
std::unique_ptr<PreparedVariant> prepareVariant(const VariantRequest &request, VerifySession *session = nullptr);

// The first error of `diags` ("line 12: message"), its code in *code ("?" when there is none).
std::string firstError(const DiagnosticEngine &diags, std::string *code);

// Parse + sema + (verify) + estimate of one variant on `machine`.  The outcome's reason/code say why it was
// rejected; otherwise it holds one estimate per kernel.  `session`: the verifier session to verify it in (a
// sweep's worker reuses one for all its variants: verify/Verifier.h); without it, one of its own.
cost::VariantOutcome analyzeVariant(const VariantRequest &request, const cost::Machine &machine,
                                    const std::map<std::string, int64_t> &shape, VerifySession *session = nullptr);

} // namespace cake
