// Driver: the cakec pipeline as one readable function.
//
//   read the file -> lex + parse -> sema -> verify (Z3) -> [cost: not built yet] -> codegen (PTX, ptxas)
//   -> outputs
//
// main.cpp turns the command line into DriverOptions (it owns every usage error); runDriver() runs the
// pipeline and returns the process exit code.  All user-facing problems are diagnostics through one
// DiagnosticEngine, rendered once at the end (text on `err`, or JSON on `out`).  Outputs are written only
// after the whole pipeline succeeded, through temporary files renamed into place, so a failing compile never
// leaves a partial or stale-looking output behind.
#pragma once
#include "support/Arch.h"
#include "support/Diagnostics.h"

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

// Process exit codes (docs/cli.md).
enum class ExitCode : int {
  Success = 0,        // compiled / verified / diagnostics matched
  InputErrors = 1,    // the input has errors, or a requested stage is not available yet (E0504)
  Usage = 2,          // command-line misuse
  Environment = 3,    // unreadable input (E0501), unwritable output (E0502), missing tool
  Internal = 4,       // internal compiler error
};

enum class EmitKind : uint8_t { IR, PTX, Cubin };
enum class DiagFormat : uint8_t { Text, Json };

struct DriverOptions {
  std::string inputPath;
  std::string outputPath;                       // empty: stdout for --emit=ir, else <input stem>.ptx/.cubin
  std::optional<Arch> arch;                     // --arch; overrides the file's target
  std::optional<EmitKind> emit;                 // --emit; otherwise inferred from -o (see effectiveEmit)
  bool verifyOnly = false;
  bool noVerify = false;                        // --no-verify: skip the Z3 obligations
  std::optional<unsigned> verifyTimeoutMs;      // --verify-timeout=MS per solver query (default 2000)
  std::string rulesPath;                        // --rules FILE: extra obligations as data (docs/rules.md)
  bool estimate = false;
  std::map<std::string, int64_t> shape;         // --shape M=4096,N=4096 (for --estimate)
  std::vector<std::string> sweep;               // --sweep BM=64,128 S=3,4 (variants for --estimate; EstimateCommand.h)
  std::optional<unsigned> top;                  // --top N: print the N best variants
  unsigned jobs = 0;                            // -j N: sweep variants analysed on N threads (0: all cores)
  std::string machine;                          // --machine NAME|PATH (default: by target, machines/*.json)
  bool estimateJson = false;                    // --json: the estimate as JSON on stdout
  std::string rooflinePath;                     // --roofline FILE.svg: the estimates against the machine's ceilings
  bool progress = true;                         // a progress bar for --sweep on stderr when it is a terminal (--no-progress)
  std::string timelinePath;                     // --timeline FILE.svg: each kernel's pipeline per role, as modelled
  std::vector<std::string> kernels;             // --kernel NAME (repeatable): compile only these kernels of the file
  std::map<std::string, int64_t> defines;       // -D NAME=VALUE (last one wins)
  std::map<std::string, std::string> typeDefines; // -D NAME=TYPE (type parameters); a name is in one map only
  DiagFormat diagFormat = DiagFormat::Text;
  std::optional<unsigned> errorLimit;           // --error-limit; default 20 (unlimited under --verify-diagnostics)
  bool verifyDiagnostics = false;
  bool debugForceInternalError = false;         // hidden test hook: raise an ICE after sema
  std::string ptxasPath;                        // --ptxas PATH (default: search, see codegen/Ptxas.h)
  bool verbose = false;                         // -v: print the ptxas resource report per kernel
  std::optional<unsigned> ptxasTimeLimitSeconds;  // --ptxas-time-limit (default codegen/Ptxas.h; 0: none)
  std::optional<unsigned> ptxasMemoryLimitMiB;    // --ptxas-memory-limit (default codegen/Ptxas.h; 0: none)
  std::optional<unsigned> ptxSizeLimitMiB;        // --ptx-size-limit (default codegen/Backend.h; 0: none)
  bool lineInfo = false;                          // -lineinfo: .cake lines in the PTX and the cubin
  bool color = false;                             // --color (auto: stderr is a terminal and NO_COLOR unset)
  bool saveTemps = false;                         // --save-temps: the PTX too, beside the cubin
  bool embedPtx = false;                          // --embed-ptx: a fat binary of the cubin and its PTX
  bool timeReport = false;                        // --time-report: each stage's wall time on stderr
  WarningPolicy warnings;                         // -w, -W<flag>, -Wno-<flag>, -Werror, -Werror=<flag>
  std::vector<std::string> ptxasArgs;             // -O N, -Xptxas ARGS: given to ptxas
  unsigned maxRegisters = 0;                      // --maxrregcount N (0: none)
};

// What the compile produces when neither --verify-only nor --estimate is given: --emit if present, else
// from the -o extension (.ptx, .cubin, .cake), else a cubin.
EmitKind effectiveEmit(const DriverOptions &opts);

// "NAME=VALUE" with VALUE a (possibly negative) decimal or 0x hex integer that fits in int64.
// Returns nullopt when malformed.
std::optional<std::pair<std::string, int64_t>> parseDefine(std::string_view text);
// "NAME=TYPE" with TYPE an identifier (a type parameter's value, e.g. T=f16); nullopt when malformed.
std::optional<std::pair<std::string, std::string>> parseTypeDefine(std::string_view text);
// "M=4096,N=4096,K=64" -> map; nullopt when malformed or empty.
std::optional<std::map<std::string, int64_t>> parseShape(std::string_view text);

struct Module;

// --kernel: drops every kernel of `module` that `names` does not list (before sema, so no later stage checks,
// proves or compiles them; an fn only they call is then parsed but not type-checked).  Returns the first name
// the module has no kernel of (the module is then unchanged), nullopt when every name was found.
std::optional<std::string> keepOnlyKernels(Module &module, const std::vector<std::string> &names);
// "a, b, c": the module's kernel names, for messages.
std::string kernelNames(const Module &module);

// Runs the pipeline.  `out` receives --emit output sent to stdout and JSON diagnostics; `err` receives
// text diagnostics and status lines.  May throw InternalError (main reports it as exit code 4).
ExitCode runDriver(const DriverOptions &opts, std::ostream &out, std::ostream &err);

// A command-line problem that has a diagnostic code (E0503 malformed -D, E0505 unknown --explain code):
// renders it without a location in the requested format and returns ExitCode::Usage.
ExitCode reportUsageError(DiagKind kind, const std::vector<std::string> &args, DiagFormat format,
                          std::ostream &out, std::ostream &err);

// --explain CODE / --explain list.  Returns Success, or Usage for an unknown code (E0505 is printed).
ExitCode explainDiagnostic(std::string_view code, std::ostream &out, std::ostream &err);

// The cakec version string ("0.1.0").
std::string_view cakeVersion();
// --version: "cakec VERSION (git REVISION)", then the Z3 version and the ptxas cakec would run (path and
// version, or "not found"), one per line.
std::string versionReport();

} // namespace cake
