// Backend: what the driver calls after sema to produce PTX or a cubin plus its launch manifest.
//
//   runBackend(request, diags)
//     generatePtx -> (emit ptx) the PTX text
//                 -> (emit cubin) ptxas -> cubin bytes, and the manifest JSON for <output>.json
//   ptxas failures become E0705 at the .cake range of the failing PTX line (through the PTX source map),
//   with the PTX line as a note; a missing ptxas is E0706 with exit code 3.  With `verbose`, the ptxas
//   resource report (registers, shared memory, stack, spills per kernel) is returned as status text.
// The driver writes the returned files (atomically) only when exitCode is 0.
#pragma once
#include "frontend/AST.h"
#include "frontend/Sema.h"
#include "support/Arch.h"
#include "support/Diagnostics.h"

#include <string>
#include <utility>
#include <vector>

namespace cake {

struct BackendRequest {
  bool wantCubin = true;       // false: PTX only
  std::string inputPath;       // the .cake file (for default output names and the manifest)
  std::string outputPath;      // "" = default (<input stem>.ptx|.cubin), "-" = stdout (PTX only)
  std::string ptxasPath;       // --ptxas; "" = search
  bool verbose = false;        // -v
};

struct BackendResult {
  int exitCode = 0;                                         // 0 ok, 1 input errors, 3 environment
  std::vector<std::pair<std::string, std::string>> files;  // (path or "-" for stdout, contents)
  std::string statusText;                                   // -v report, for stderr
};

BackendResult runBackend(const Module &m, const SemaResult &sema, const BackendRequest &request,
                         DiagnosticEngine &diags);

// "k.cake" -> "k" + ext, in the same folder.
std::string defaultOutputPath(const std::string &inputPath, std::string_view ext);

} // namespace cake
