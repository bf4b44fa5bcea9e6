// cakec: command-line parsing only (CLI11).  Turns argv into DriverOptions, rejects misuse with exit code 2,
// and hands over to runDriver() (Driver.h) or explainDiagnostic().  An InternalError escaping the pipeline
// is reported as "internal compiler error: ..." with exit code 4.  docs/cli.md is the user reference.
#include "driver/CalibrateCommand.h"
#include "driver/LibraryCommand.h"
#include "driver/RunCommand.h"
#include "codegen/Backend.h"
#include "codegen/Ptxas.h"
#include "driver/Driver.h"
#include "support/EditDistance.h"
#include "support/LargeStack.h"
#include "support/SignalCleanup.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>

using namespace cake;

namespace {

int code(ExitCode c) { return static_cast<int>(c); }

// --diagnostics-format=json asked for anywhere on the command line (looked up before parsing, so that a
// command-line error is reported on stdout as the one JSON document the caller parses).
bool gJsonDiagnostics = false;

bool jsonRequested(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--diagnostics-format=json" || (a == "--diagnostics-format" && i + 1 < argc && std::string_view(argv[i + 1]) == "json"))
      return true;
  }
  return false;
}

// The arguments after the program name, with nvcc's single-dash spellings of long options turned into
// cakec's (`-arch=sm_90a` / `-arch sm_90a` -> `--arch=sm_90a`, `-lineinfo`, `-maxrregcount N`), and each
// `-Xptxas VALUE` joined into `--Xptxas=VALUE` so that a VALUE starting with '-' is not taken for an option.
std::vector<std::string> withNvccSpellings(int argc, char **argv) {
  static const char *const kSingleDash[] = {"-arch", "-lineinfo", "-maxrregcount", "-Xptxas"};
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    for (const char *name : kSingleDash) {
      std::string_view n = name;
      if (a == n || (a.size() > n.size() && a.compare(0, n.size(), n) == 0 && a[n.size()] == '=')) {
        a = "-" + a;
        break;
      }
    }
    if ((a == "--Xptxas" || a == "--ptxas-options") && i + 1 < argc) a += "=" + std::string(argv[++i]);
    args.push_back(std::move(a));
  }
  return args;
}

// "did you mean '--verify-only'?" for the first argument that looks like a long option cakec does not have.
std::string unknownOptionHint(const CLI::App &app, const std::vector<std::string> &args) {
  std::vector<std::string> known;
  for (const CLI::Option *o : app.get_options())
    for (const std::string &n : o->get_lnames()) known.push_back("--" + n);
  for (const std::string &a : args) {
    if (a.rfind("--", 0) != 0) continue;
    std::string name = a.substr(0, a.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string best = closestName(name, known);
    if (!best.empty()) return "did you mean '" + best + "'?";
  }
  return "";
}

// One diagnostic without a location as the JSON array on stdout.
void jsonDiagnostic(DiagKind kind, const std::string &message, const std::string &hint = "") {
  SourceManager none;
  DiagnosticEngine diags(none);
  auto d = diags.report(kind, SourceRange{}, message);
  if (!hint.empty()) d.hint(hint);
  diags.renderJson(std::cout);
  std::cout.flush();
}

int usageError(const std::string &message, const std::string &hint = "") {
  if (gJsonDiagnostics) jsonDiagnostic(DiagKind::CommandLineError, message, hint);
  std::cerr << "cakec: error: " << message << "\n";
  if (!hint.empty()) std::cerr << "hint: " << hint << "\n";
  std::cerr << "Run with --help for more information.\n";
  return code(ExitCode::Usage);
}

// Runs `body` and turns anything it throws into "internal compiler error: ..." with exit code 4: an
// InternalError (a broken invariant) or any other exception (bad_alloc, out_of_range, ...), which is still a
// bug in cakec, never the user's.  Both the compile pipeline and `cakec calibrate` run under it.
template <class Body> int guarded(const std::string &input, Body &&body) {
  auto report = [&](std::string what) {
    std::cout.flush();
    if (gJsonDiagnostics) jsonDiagnostic(DiagKind::InternalCompilerError, what);
    std::cerr << "internal compiler error: " << what << "\ncakec " << cakeVersion() << " failed on '" << input
              << "'; this is a bug in cakec, not in the input\n";
    return code(ExitCode::Internal);
  };
  try {
    return body();
  } catch (const InternalError &e) {
    std::string what = e.what();
    const std::string prefix = "internal compiler error";
    if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
    if (what.rfind(" at ", 0) == 0) what = what.substr(1);
    return report(what);
  } catch (const std::exception &e) {
    return report(std::string("unexpected exception: ") + e.what());
  } catch (...) {
    return report("unexpected exception of unknown type");
  }
}

} // namespace

namespace {

int cakecMain(int argc, char **argv) {
  installSignalCleanup();   // SIGINT/SIGTERM/SIGHUP: kill ptxas, remove temporary files, re-raise
  gJsonDiagnostics = jsonRequested(argc, argv);
  if (argc > 1 && std::string_view(argv[1]) == "calibrate")
    return guarded("calibrate", [&] { return runCalibrateCommand(argc - 1, argv + 1); });
  if (argc > 1 && std::string_view(argv[1]) == "library")
    return guarded("library", [&] { return runLibraryCommand(argc - 1, argv + 1); });
  if (argc > 1 && std::string_view(argv[1]) == "run")
    return guarded("run", [&] { return runRunCommand(argc - 1, argv + 1); });
  CLI::App app{"cakec: compiler for CAKE IR, a hardware-explicit schedule language for NVIDIA GPUs"};
  app.name("cakec");
  app.footer(
      "Subcommands:\n  cakec calibrate MEASUREMENTS -o MACHINE.json   fit the cost model's machine description to "
      "measured "
      "runs\n                                               (cakec calibrate --help)\n"
      "  cakec run FILE --shape .. --inputs .. --outputs ..   run a kernel on the CPU (cakec run --help)\n"
      "  cakec library build SPEC.json -o DIR           build a kernel library: variants + checked dispatch table\n"
      "  cakec library estimate SPEC.json --shape ..    price every variant of a library with the cost model\n"
      "Exit codes: 0 success, 1 errors in the input (or a stage not available yet), 2 command-line "
      "misuse,\n3 environment failure (unreadable input, unwritable output, missing tool), 4 internal "
      "compiler error.\nReference: docs/cli.md");
  app.set_version_flag("--version", [] { return versionReport(); },
                       "print cakec's version and git revision, the Z3 and the ptxas it uses, and exit");

  DriverOptions opts;
  std::string archText, emitName, shapeText, formatName = "text", explainCode;
  std::vector<std::string> defineTexts;
  unsigned errorLimit = 0;

  app.add_option("FILE", opts.inputPath, "input .cake file ('-' reads standard input)");
  auto *output = app.add_option("-o,--output", opts.outputPath, "output file ('-' or none: stdout for --emit=ir)");
  app.add_option("--arch,--gpu-architecture", archText, "target architecture, overrides the file's 'target': " +
                                                      allArchNames())
                   ->check(CLI::Validator(
                       [](std::string &value) {
                         return parseArch(value) ? std::string() : "unknown architecture '" + value +
                                                                       "' (known: " + allArchNames() + ")";
                       },
                       "ARCH"));
  auto *emit = app.add_option("--emit", emitName, "output kind: ir (canonical CAKE IR), ptx, cubin")
                   ->check(CLI::IsMember({"ir", "ptx", "cubin"}));
  auto *verifyOnly = app.add_flag("--verify-only", opts.verifyOnly, "run all checks and produce no output");
  auto *estimate = app.add_flag("--estimate", opts.estimate, "predict run time with the cost model");
  auto *noVerify = app.add_flag("--no-verify", opts.noVerify, "skip the verifier's proof obligations");
  unsigned verifyTimeout = 0;
  auto *verifyTimeoutOpt = app.add_option("--verify-timeout", verifyTimeout, "time limit per solver query in ms (default 2000)")
                               ->check(CLI::Range(1u, 3600000u));
  auto *rules = app.add_option("--rules", opts.rulesPath, "check the ordering obligations of a rules file (JSON, docs/rules.md)");
  app.add_option("--shape", shapeText, "concrete shape for --estimate, e.g. M=4096,N=4096,K=4096")
      ->needs(estimate);
  app.add_option("--sweep", opts.sweep, "with --estimate: rank every combination of compile-time values, "
                                        "e.g. --sweep BM=64,128 BN=128,256 S=3,4,5")
      ->needs(estimate);
  unsigned topCount = 0;
  auto *top = app.add_option("--top", topCount, "with --sweep: print only the N fastest variants")
                  ->needs(estimate)->check(CLI::Range(1u, 1000000u));
  app.add_option("-j,--jobs", opts.jobs, "with --sweep: analyse variants on N threads (default: one per core); "
                                        "the output does not depend on N")
      ->needs(estimate)->check(CLI::Range(1u, 1024u));
  app.add_option("--machine", opts.machine, "with --estimate: machine description NAME (machines/*.json) or PATH")
      ->needs(estimate);
  app.add_flag("--json", opts.estimateJson, "with --estimate: print the estimate as JSON")->needs(estimate);
  app.add_option("--roofline", opts.rooflinePath, "with --estimate: draw the estimates (or the ranked --sweep "
                                                  "variants) against the machine's ceilings into FILE.svg")
      ->needs(estimate);
  bool noProgress = false;
  app.add_flag("--no-progress", noProgress, "with --sweep: no progress bar on stderr (shown only on a terminal, "
                                            "after a second)");
  app.add_option("--timeline", opts.timelinePath, "with --estimate: draw each kernel's pipeline per role as the "
                                                  "cost model sees it into FILE.svg")
      ->needs(estimate);
  app.add_option("-D,--define", defineTexts, "override a compile-time parameter: -D NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--kernel", opts.kernels, "check and compile only this kernel of the file (repeatable; default: "
                                           "every kernel)")
      ->allow_extra_args(false);
  app.add_option("--diagnostics-format", formatName, "text (stderr, default) or json (stdout)")
      ->check(CLI::IsMember({"text", "json"}));
  auto *limit = app.add_option("--error-limit", errorLimit, "stop after N errors (default 20; 0 = no limit)")
                    ->check(CLI::Range(0u, 1000000u));
  auto *explain = app.add_option("--explain", explainCode, "explain a diagnostic code (E0301), or 'list'");
  app.add_option("--ptxas", opts.ptxasPath, "ptxas executable (default: $CUDA_HOME/bin, PATH, /usr/local/cuda/bin)");
  unsigned ptxasTime = 0, ptxasMemory = 0, ptxSize = 0;
  auto *ptxasTimeOpt = app.add_option("--ptxas-time-limit", ptxasTime,
                                      "stop ptxas after SECONDS (default " +
                                          std::to_string(kDefaultPtxasTimeLimitSeconds) + "; 0 = no limit)")
                           ->check(CLI::Range(0u, 86400u));
  auto *ptxasMemoryOpt = app.add_option("--ptxas-memory-limit", ptxasMemory,
                                        "ptxas address-space limit in MiB (default " +
                                            std::to_string(kDefaultPtxasMemoryLimitMiB) + "; 0 = no limit)")
                             ->check(CLI::Range(0u, 1u << 24));
  auto *ptxSizeOpt = app.add_option("--ptx-size-limit", ptxSize,
                                    "largest PTX given to ptxas, in MiB (default " +
                                        std::to_string(kDefaultPtxSizeLimitBytes >> 20) + "; 0 = no limit)")
                         ->check(CLI::Range(0u, 1u << 20));
  app.add_flag("-v,--verbose", opts.verbose, "print registers, shared memory, stack and spills per kernel (ptxas -v)");
  app.add_flag("--lineinfo,--generate-line-info", opts.lineInfo,
               "record each instruction's .cake line in the PTX (.file/.loc) and the cubin (ptxas -lineinfo), for "
               "Nsight Compute and compute-sanitizer");
  app.add_flag("--save-temps", opts.saveTemps, "keep the PTX given to ptxas beside the cubin (OUT.ptx)");
  app.add_flag("--embed-ptx", opts.embedPtx,
               "write a fat binary holding the cubin and its PTX, which the driver compiles for later GPUs (sm_XY "
               "targets; needs the toolkit's fatbinary)");
  app.add_flag("--time-report", opts.timeReport, "print each stage's wall time (read, parse, inline, sema, verify, codegen, "
                                                 "ptxas, write) on stderr");
  unsigned ptxasOptLevel = 3;
  auto *optLevelOpt = app.add_option("-O", ptxasOptLevel, "ptxas optimisation level 0..3 (default 3), as nvcc -O")
                          ->check(CLI::Range(0u, 3u));
  unsigned maxRegisters = 0;
  auto *maxRegistersOpt = app.add_option("--maxrregcount", maxRegisters, "at most N registers per thread (.maxnreg N in every entry)")
                              ->check(CLI::Range(16u, 255u));
  std::vector<std::string> warningTexts;
  app.add_option("-W", warningTexts, "warnings: -W<flag> on, -Wno-<flag> off, -Werror (all) or -Werror=<flag> as errors; "
                                     "flags: " + [] {
                                       std::string list;
                                       for (const std::string &f : allWarningFlags()) list += (list.empty() ? "" : " ") + f;
                                       return list;
                                     }())
      ->allow_extra_args(false);
  bool noWarnings = false;
  app.add_flag("-w", noWarnings, "no warnings at all");
  std::string colorWhen = "auto";
  app.add_option("--color", colorWhen,
                 "colour diagnostics: auto (when stderr is a terminal and NO_COLOR is unset or empty), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  std::vector<std::string> ptxasOptionTexts;
  app.add_option("--Xptxas,--ptxas-options", ptxasOptionTexts,
                 "options for ptxas, comma-separated, repeatable: -Xptxas -O3,--warn-on-spills")
      ->allow_extra_args(false);
  app.add_flag("--verify-diagnostics", opts.verifyDiagnostics,
               "check the diagnostics against the file's expected-error/warning/note comments");
  app.add_flag("--debug-force-internal-error", opts.debugForceInternalError,
               "testing: raise an internal compiler error after sema")
      ->group("");   // hidden

  verifyOnly->excludes(estimate)->excludes(emit)->excludes(output);
  rules->excludes(noVerify);
  noVerify->excludes(verifyTimeoutOpt);
  estimate->excludes(emit)->excludes(output);
  explain->excludes("FILE");

  const std::vector<std::string> args = withNvccSpellings(argc, argv);
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());   // CLI11 takes the arguments last-first
    app.parse(reversed);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0) return app.exit(e);   // --help, --version
    return usageError(e.what(), unknownOptionHint(app, args));
  }

  DiagFormat format = formatName == "json" ? DiagFormat::Json : DiagFormat::Text;
  if (!explainCode.empty()) return code(explainDiagnostic(explainCode, std::cout, std::cerr));
  if (opts.inputPath.empty()) return usageError("no input file");

  if (!archText.empty()) opts.arch = parseArch(archText);
  if (!emitName.empty())
    opts.emit = emitName == "ir" ? EmitKind::IR : emitName == "ptx" ? EmitKind::PTX : EmitKind::Cubin;
  if (*limit) opts.errorLimit = errorLimit;
  if (*top) opts.top = topCount;
  opts.progress = !noProgress;
  if (*verifyTimeoutOpt) opts.verifyTimeoutMs = verifyTimeout;
  if (*ptxasTimeOpt) opts.ptxasTimeLimitSeconds = ptxasTime;
  if (*ptxasMemoryOpt) opts.ptxasMemoryLimitMiB = ptxasMemory;
  if (*ptxSizeOpt) opts.ptxSizeLimitMiB = ptxSize;
  if (*optLevelOpt) opts.ptxasArgs = {"-O" + std::to_string(ptxasOptLevel)};
  if (*maxRegistersOpt) opts.maxRegisters = maxRegisters;
  for (const std::string &text : ptxasOptionTexts) {
    size_t start = 0;
    for (size_t comma = text.find(','); ; comma = text.find(',', start)) {
      std::string piece = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!piece.empty()) opts.ptxasArgs.push_back(piece);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  opts.diagFormat = format;
  opts.warnings.allOff = noWarnings;
  for (const std::string &w : warningTexts) {
    std::string_view text = w;
    bool off = text.rfind("no-", 0) == 0 && text != "no-error";
    bool asError = text == "error" || text.rfind("error=", 0) == 0;
    if (text == "error") {
      opts.warnings.allErrors = true;
      continue;
    }
    std::string flag(off ? text.substr(3) : asError ? text.substr(6) : text);
    std::optional<DiagKind> kind = warningByFlag(flag);
    if (!kind) {
      std::string best = closestName(flag, allWarningFlags());
      return usageError("-W" + w + ": no warning is named '" + flag + "'",
                        best.empty() ? "warning flags: see cakec --help" : "did you mean '" + best + "'?");
    }
    if (off) {
      opts.warnings.off.insert(*kind);
    } else {
      opts.warnings.off.erase(*kind);
      if (asError) opts.warnings.errors.insert(*kind);
    }
  }
  const char *noColor = std::getenv("NO_COLOR");
  opts.color = colorWhen == "always" ||
               (colorWhen == "auto" && isatty(STDERR_FILENO) && !(noColor && *noColor));
  for (const std::string &text : defineTexts) {
    // The last -D for a name wins, an integer or a type (-D T=f16, for a type parameter).
    if (auto define = parseDefine(text)) {
      opts.typeDefines.erase(define->first);
      opts.defines[define->first] = define->second;
    } else if (auto typeDefine = parseTypeDefine(text)) {
      opts.defines.erase(typeDefine->first);
      opts.typeDefines[typeDefine->first] = typeDefine->second;
    } else {
      return code(reportUsageError(DiagKind::MalformedDefine, {text}, format, std::cout, std::cerr));
    }
  }
  if (!shapeText.empty()) {
    auto shape = parseShape(shapeText);
    if (!shape) return usageError("malformed --shape '" + shapeText + "': expected NAME=INTEGER[,NAME=INTEGER...]");
    opts.shape = *shape;
  }
  // Only --emit=ir defaults to stdout; PTX and cubins go there only with '-o -'.
  bool outputToStdout = !opts.verifyOnly && !opts.estimate &&
                        (opts.outputPath == "-" || (opts.outputPath.empty() && effectiveEmit(opts) == EmitKind::IR));
  if (format == DiagFormat::Json && outputToStdout && !opts.verifyDiagnostics)
    return usageError("--diagnostics-format=json writes diagnostics to stdout; give the output a file with -o FILE");
  if (format == DiagFormat::Json && opts.estimate && opts.estimateJson && !opts.verifyDiagnostics)
    return usageError("--estimate --json and --diagnostics-format=json both write a JSON document to stdout; "
                      "use one (with --estimate --json alone, diagnostics go to stderr as text)");
  if (!opts.rooflinePath.empty() && opts.rooflinePath == opts.timelinePath)
    return usageError("--roofline and --timeline name the same file '" + opts.rooflinePath +
                      "'; give each picture its own");
  if (opts.rooflinePath == "-" || opts.timelinePath == "-")
    return usageError("a picture goes to a file (--roofline FILE.svg, --timeline FILE.svg), not to stdout, which "
                      "carries the estimate");

  return guarded(opts.inputPath, [&] { return code(runDriver(opts, std::cout, std::cerr)); });
}

} // namespace

// The whole command runs on a thread with a stack of its own (support/LargeStack.h), so that the deepest
// program the parser accepts is analysed whatever the user's stack limit is.
int main(int argc, char **argv) {
  return cake::runOnLargeStack([&] { return cakecMain(argc, argv); });
}
