// Backend: what the driver calls after sema to produce PTX or a cubin plus its launch manifest.
//
//   runBackend(request, diags)
//     generatePtx -> (emit ptx) the PTX text
//                 -> (emit cubin) ptxas -> cubin bytes, and the manifest JSON for <output>.json
//   PTX over the size limit is E0716 before ptxas runs; ptxas past its time limit is E0713, killed by a
//   signal E0714, exiting 0 without a cubin E0715; the manifest records the cubin's SHA-256 and the ptxas
//   used (path and version).
//   ptxas failures become E0705 at the .cake range of the failing PTX line (through the PTX source map),
//   with the PTX line as a note; a missing ptxas is E0706 with exit code 3.  With `verbose`, the ptxas
//   resource report (registers, shared memory, stack, spills per kernel) is returned as status text.
// The driver writes the returned files (atomically) only when exitCode is 0.
#pragma once
#include "codegen/Ptxas.h"
#include "frontend/AST.h"
#include "frontend/Sema.h"
#include "support/Arch.h"
#include "support/Diagnostics.h"

#include <string>
#include <utility>
#include <vector>

namespace cake {

// Default of --ptx-size-limit: PTX larger than this is not given to ptxas (E0716).
constexpr uint64_t kDefaultPtxSizeLimitBytes = 8ull << 20;

struct BackendRequest {
  bool wantCubin = true;       // false: PTX only
  std::string inputPath;       // the .cake file (for default output names and the manifest)
  std::string generator = "cakec";   // the manifest's "generator": the compiler and its version
  std::string outputPath;      // "" = default (<input stem>.ptx|.cubin), "-" = stdout (PTX only)
  std::string ptxasPath;       // --ptxas; "" = search
  bool verbose = false;        // -v
  PtxasLimits ptxasLimits;     // --ptxas-time-limit, --ptxas-memory-limit
  uint64_t ptxSizeLimitBytes = kDefaultPtxSizeLimitBytes;   // --ptx-size-limit; 0: none
  bool lineInfo = false;       // -lineinfo: .file/.loc in the PTX (LineInfo.h), ptxas -lineinfo
  bool saveTemps = false;      // --save-temps: also write the PTX given to ptxas, beside the cubin
  bool embedPtx = false;       // --embed-ptx: the output is a fat binary of the cubin and its PTX (E0718)
  std::vector<std::string> ptxasArgs;   // -O, -Xptxas: passed to ptxas as they are
  unsigned maxRegisters = 0;   // --maxrregcount: `.maxnreg N` in every entry (0: none)
};

struct BackendResult {
  int exitCode = 0;                                         // 0 ok, 1 input errors, 3 environment
  std::vector<std::pair<std::string, std::string>> files;  // (path or "-" for stdout, contents)
  std::string statusText;                                   // -v report, for stderr
  double codegenSeconds = 0, ptxasSeconds = 0;              // wall times, for --time-report
};

BackendResult runBackend(const Module &m, const SemaResult &sema, const BackendRequest &request,
                         DiagnosticEngine &diags);

// "k.cake" -> "k" + ext, in the same folder.
std::string defaultOutputPath(const std::string &inputPath, std::string_view ext);

} // namespace cake
