// Driver: runs the cakec pipeline for one input file (see Driver.h).
//
// runDriver() is the whole compiler in order, one named step per stage; everything else in this file is a
// helper for one of those steps (reading the source, writing an output atomically, option values).
// A stage that cannot serve a request (--estimate for a target without a machine description) says so
// with the diagnostic E0504 and exit code 1, never a fake result.
#include "driver/Driver.h"

#include "codegen/Backend.h"
#include "codegen/CodeGen.h"
#include "codegen/Ptxas.h"
#include "driver/EstimateCommand.h"
#include "driver/VerifyDiagnostics.h"
#include "frontend/ASTPrinter.h"
#include "frontend/Inline.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "support/Diagnostics.h"
#include "support/ReadFile.h"
#include "support/SignalCleanup.h"
#include "verify/RuleSet.h"
#include "verify/Verifier.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
#include <z3.h>

#ifndef CAKE_VERSION
#define CAKE_VERSION "unknown"
#endif

namespace cake {

namespace {

constexpr uint64_t kMaxSourceBytes = 64ull << 20;   // E0107
constexpr unsigned kDefaultErrorLimit = 20;

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<int64_t> parseInteger(std::string_view text) {
  bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return std::nullopt;
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), magnitude, base);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (negative) {
    if (magnitude > uint64_t(INT64_MAX) + 1) return std::nullopt;
    return magnitude == uint64_t(INT64_MAX) + 1 ? INT64_MIN : -static_cast<int64_t>(magnitude);
  }
  if (magnitude > uint64_t(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(magnitude);
}

bool isIdentifier(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// Step 1: the source text.  "-" reads standard input.  Returns the file id, or nullopt after reporting
// E0501 (unreadable: an environment failure) or E0107 (too large: an input error).
struct ReadResult {
  std::optional<uint32_t> file;
  ExitCode failure = ExitCode::Success;
  std::optional<std::pair<dev_t, ino_t>> identity;   // the input's device and inode, when it has one
};

ReadResult readSourceFile(const std::string &path, SourceManager &sources, DiagnosticEngine &diags) {
  auto unreadable = [&](const std::string &why) {
    diags.report(DiagKind::CannotReadFile, SourceRange{}, path, why);
    return ReadResult{std::nullopt, ExitCode::Environment, std::nullopt};
  };
  // Bounded for every kind of input: a regular file's size is checked before reading, standard input, FIFOs
  // and devices (/dev/zero) are refused as soon as they pass the limit (support/ReadFile.h).
  ReadFileResult read = readFileBounded(path, kMaxSourceBytes);
  if (read.status == ReadFileResult::TooLarge) {
    // A stream is stopped at the first byte past the limit: its size is not known.
    std::string size = read.size ? std::to_string(read.size) : "more than " + std::to_string(kMaxSourceBytes);
    diags.report(DiagKind::FileTooLarge, SourceRange{}, size, kMaxSourceBytes);
    return {std::nullopt, ExitCode::InputErrors, std::nullopt};
  }
  if (!read.ok()) return unreadable(read.error);
  std::string text = std::move(read.text);
  struct stat st{};
  std::optional<std::pair<dev_t, ino_t>> identity;
  if ((path == "-" ? ::fstat(STDIN_FILENO, &st) : ::stat(path.c_str(), &st)) == 0 && S_ISREG(st.st_mode))
    identity = std::make_pair(st.st_dev, st.st_ino);
  return {sources.addBuffer(path == "-" ? "<stdin>" : path, std::move(text)), ExitCode::Success, identity};
}

// One output of the compile: a path ("-" = stdout) and its bytes.
struct OutputFile {
  std::string path;
  std::string contents;
};

struct OutputFailure {
  std::string path;
  std::string why;
};

// The first output that is the input file itself (same device and inode, so hard and symbolic links count),
// or nullptr.  Checked before anything is written: `cakec k.cake -o k.cake` must not destroy the source.
const OutputFile *outputThatIsInput(const std::vector<OutputFile> &outputs,
                                    const std::optional<std::pair<dev_t, ino_t>> &input) {
  if (!input) return nullptr;
  for (const OutputFile &o : outputs) {
    struct stat st{};
    if (o.path != "-" && ::stat(o.path.c_str(), &st) == 0 && st.st_dev == input->first && st.st_ino == input->second)
      return &o;
  }
  return nullptr;
}

bool writeAll(int fd, std::string_view contents) {
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Final step: writes the outputs in order (the cubin before its manifest), all or none as far as the file
// system allows.
//   1. Each output that is (or will be) a regular file is written to a temporary file next to it
//      (OUT.cakec-tmp-PID, registered for the signal handler: support/SignalCleanup.h); a failure removes
//      them all and leaves every target unchanged.
//   2. Then, in order, each output is put in place: a temporary is renamed over its target; an output that is
//      not a regular file (/dev/stdout, a FIFO) is written directly; "-" goes to `out`.  A failure stops here
//      and removes the temporaries not yet renamed, so a manifest never lands unless its cubin did.
// The one non-atomic window left (killed between the cubin's and the manifest's rename: a new cubin beside
// an old manifest) is caught at load time: the manifest names the SHA-256 of its cubin.
std::optional<OutputFailure> writeOutputs(const std::vector<OutputFile> &outputs, std::ostream &out) {
  struct Staged {
    std::string temp;                        // "" when written directly
    std::unique_ptr<CleanupPath> cleanup;
  };
  std::vector<Staged> staged(outputs.size());
  auto discardStaged = [&](size_t from) {
    for (size_t i = from; i < staged.size(); ++i)
      if (!staged[i].temp.empty()) {
        ::unlink(staged[i].temp.c_str());
        staged[i].cleanup.reset();
        staged[i].temp.clear();
      }
  };
  auto failure = [&](size_t from, const std::string &path, std::string why) {
    discardStaged(from);
    return std::optional<OutputFailure>(OutputFailure{path, std::move(why)});
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputFile &o = outputs[i];
    if (o.path == "-") continue;
    struct stat st{};
    if (::stat(o.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return failure(0, o.path, "it is a directory");
    if (::stat(o.path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) continue;   // device or FIFO: step 2
    std::string temp = o.path + ".cakec-tmp-" + std::to_string(::getpid());
    staged[i].cleanup = std::make_unique<CleanupPath>(temp);   // before the file exists: no window
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
      staged[i].cleanup.reset();
      return failure(0, o.path, std::strerror(errno));
    }
    staged[i].temp = temp;
    bool ok = writeAll(fd, o.contents);
    int savedErrno = errno;
    if (::close(fd) != 0 && ok) {
      ok = false;
      savedErrno = errno;
    }
    if (!ok) return failure(0, o.path, std::strerror(savedErrno));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputFile &o = outputs[i];
    if (o.path == "-") {
      out << o.contents;
      out.flush();
      if (!out) return failure(i, "<stdout>", "write failed");
    } else if (!staged[i].temp.empty()) {
      if (::rename(staged[i].temp.c_str(), o.path.c_str()) != 0) return failure(i, o.path, std::strerror(errno));
      staged[i].cleanup.reset();
      staged[i].temp.clear();
    } else {
      int fd = ::open(o.path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
      if (fd < 0) return failure(i, o.path, std::strerror(errno));
      bool ok = writeAll(fd, o.contents);
      int savedErrno = errno;
      ::close(fd);
      if (!ok) return failure(i, o.path, std::strerror(savedErrno));
    }
  }
  return std::nullopt;
}

} // namespace

std::string_view cakeVersion() { return CAKE_VERSION; }

const char *cakeGitRevision();   // generated/GitRevision.cpp (utils/git-revision.cmake)

std::string versionReport() {
  std::string report = "cakec " + std::string(cakeVersion()) + " (git " + cakeGitRevision() + ")\n";
  report += std::string("Z3 ") + Z3_get_full_version() + "\n";
  if (auto ptxas = findPtxas("")) {
    std::string version = ptxasVersion(*ptxas, PtxasLimits{});
    report += "ptxas " + *ptxas + " " + (version.empty() ? "(version unknown)" : version);
  } else {
    report += "ptxas not found ($CUDA_HOME/bin, PATH, /usr/local/cuda/bin)";
  }
  return report;
}

EmitKind effectiveEmit(const DriverOptions &opts) {
  if (opts.emit) return *opts.emit;
  if (endsWith(opts.outputPath, ".ptx")) return EmitKind::PTX;
  if (endsWith(opts.outputPath, ".cake")) return EmitKind::IR;
  return EmitKind::Cubin;
}

std::optional<std::pair<std::string, int64_t>> parseDefine(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  std::string_view name = text.substr(0, eq);
  if (!isIdentifier(name)) return std::nullopt;
  std::optional<int64_t> value = parseInteger(text.substr(eq + 1));
  if (!value) return std::nullopt;
  return std::make_pair(std::string(name), *value);
}

std::optional<std::pair<std::string, std::string>> parseTypeDefine(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  std::string_view name = text.substr(0, eq), value = text.substr(eq + 1);
  if (!isIdentifier(name) || !isIdentifier(value)) return std::nullopt;
  return std::make_pair(std::string(name), std::string(value));
}

std::string kernelNames(const Module &module) {
  std::string names;
  for (const Ptr<Kernel> &k : module.kernels) names += (names.empty() ? "" : ", ") + k->name;
  return names;
}

std::optional<std::string> keepOnlyKernels(Module &module, const std::vector<std::string> &names) {
  if (names.empty()) return std::nullopt;
  for (const std::string &wanted : names)
    if (std::none_of(module.kernels.begin(), module.kernels.end(), [&](const Ptr<Kernel> &k) { return k->name == wanted; }))
      return wanted;
  std::erase_if(module.kernels, [&](const Ptr<Kernel> &k) {
    return std::find(names.begin(), names.end(), k->name) == names.end();
  });
  return std::nullopt;
}

std::optional<std::map<std::string, int64_t>> parseShape(std::string_view text) {
  std::map<std::string, int64_t> shape;
  while (true) {
    size_t comma = text.find(',');
    auto item = parseDefine(text.substr(0, comma));
    if (!item) return std::nullopt;
    shape[item->first] = item->second;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return shape;
}

ExitCode explainDiagnostic(std::string_view code, std::ostream &out, std::ostream &err) {
  if (code == "list") {
    for (const DiagKindInfo &k : allDiagKinds())
      out << k.code << "  " << k.name << ": " << k.format << '\n';
    return ExitCode::Success;
  }
  const DiagKindInfo *info = findDiagByCode(code);
  if (!info) return reportUsageError(DiagKind::UnknownDiagnosticCode, {std::string(code)}, DiagFormat::Text, out, err);
  const char *severity = info->severity == Severity::Fatal     ? "fatal error"
                         : info->severity == Severity::Warning ? "warning"
                         : info->severity == Severity::Note    ? "note"
                                                               : "error";
  out << info->code << " (" << info->name << ", " << severity << "): " << info->format << "\n\n"
      << info->explanation << '\n';
  return ExitCode::Success;
}

ExitCode reportUsageError(DiagKind kind, const std::vector<std::string> &args, DiagFormat format,
                          std::ostream &out, std::ostream &err) {
  SourceManager none;
  DiagnosticEngine diags(none);
  diags.reportArgs(kind, SourceRange{}, args);
  if (format == DiagFormat::Json) diags.renderJson(out);
  else diags.renderText(err);
  return ExitCode::Usage;
}

namespace {
// --time-report: the wall time of each stage that ran, in order ("parse 0.41 ms").  mark(stage) closes the
// stage that began at the previous mark; mark(stage, seconds) records a stage timed elsewhere (the backend's
// codegen and ptxas) and starts the next one now.
class StageTimes {
public:
  void mark(const std::string &stage) { mark(stage, std::chrono::duration<double>(Clock::now() - since_).count()); }
  void mark(const std::string &stage, double seconds) {
    stages_.emplace_back(stage, seconds);
    since_ = Clock::now();
  }
  void print(std::ostream &err) const {
    double total = 0;
    err << "cakec: time report:";
    for (const auto &[stage, seconds] : stages_) {
      err << ' ' << stage << ' ' << formatMs(seconds) << ',';
      total += seconds;
    }
    err << " total " << formatMs(total) << '\n';
  }

private:
  using Clock = std::chrono::steady_clock;
  static std::string formatMs(double seconds) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f ms", seconds * 1e3);
    return buf;
  }
  Clock::time_point since_ = Clock::now();
  std::vector<std::pair<std::string, double>> stages_;
};
} // namespace

ExitCode runDriver(const DriverOptions &opts, std::ostream &out, std::ostream &err) {
  StageTimes times;
  SourceManager sources;
  unsigned errorLimit = opts.errorLimit.value_or(opts.verifyDiagnostics ? 0 : kDefaultErrorLimit);
  DiagnosticEngine diags(sources, errorLimit);
  diags.setWarningPolicy(opts.warnings);
  uint32_t file = 0;

  // Every exit goes through here: render the diagnostics (or check them against the file's expectations).
  auto finish = [&](ExitCode code) {
    if (opts.timeReport) times.print(err);
    if (code == ExitCode::Success && diags.hasErrors()) code = ExitCode::InputErrors;   // a warning made an error
    if (opts.verifyDiagnostics && file != 0) {
      bool matched = verifyDiagnostics(sources.name(file), sources.text(file), diags, file, err);
      // An environment failure stays one; otherwise the verdict is whether the diagnostics matched.
      if (code == ExitCode::Environment || code == ExitCode::Usage) return code;
      return matched ? ExitCode::Success : ExitCode::InputErrors;
    }
    if (opts.diagFormat == DiagFormat::Json) diags.renderJson(out);
    else diags.renderText(err, opts.color);
    // stdout carries JSON diagnostics, estimates and --emit output: if it could not be written (a full
    // device, a closed pipe), the result is lost and the run failed, whatever the exit code would have been.
    errno = 0;
    out.flush();
    if (!out) {
      std::string why = errno ? std::strerror(errno) : "write failed";
      SourceManager none;
      DiagnosticEngine lost(none);
      lost.report(DiagKind::CannotWriteOutput, SourceRange{}, "<stdout>", why);
      lost.renderText(err, opts.color);
      return ExitCode::Environment;
    }
    return code;
  };

  // 1. Read the source.
  ReadResult read = readSourceFile(opts.inputPath, sources, diags);
  if (!read.file) return finish(read.failure);
  file = *read.file;
  times.mark("read");

  // 2. Lex + parse.  The parser returns a (possibly partial) module and reports what it could not parse.
  Ptr<Module> module = parseModule(sources, file, diags);
  times.mark("parse");
  if (diags.hasErrors()) return finish(ExitCode::InputErrors);   // sema needs a complete tree
  // 2a. --kernel: the other kernels are dropped here, so no later stage checks, proves or compiles them (an fn
  //     that only they call is then parsed but not type-checked).
  if (std::optional<std::string> missing = keepOnlyKernels(*module, opts.kernels)) {
    err << "cakec: error: --kernel " << *missing << ": " << sources.name(file) << " has no such kernel (its kernels: "
        << kernelNames(*module) << ")\n";
    return finish(ExitCode::Usage);
  }
  // --emit=ir prints the module as written: its fns, and kernels with their calls (before inlining).
  std::string asWritten = effectiveEmit(opts) == EmitKind::IR ? printModule(*module) : std::string();

  // 2b. Inline: every call of an fn is replaced by a copy of its body (src/frontend/Inline.h), so sema and
  //     every later stage see kernels without calls.
  bool inlined = inlineFunctions(*module, sources, diags);
  times.mark("inline");
  if (!inlined || diags.hasErrors()) return finish(ExitCode::InputErrors);

  // 3. Sema: names, types, shapes, roles, launch, arch features; applies --arch and -D.
  SemaOptions semaOptions;
  semaOptions.archOverride = opts.arch;
  semaOptions.defines = opts.defines;
  semaOptions.typeDefines = opts.typeDefines;
  SemaResult sema = analyzeModule(*module, semaOptions, diags);
  times.mark("sema");
  if (diags.hasErrors() || !sema.ok) return finish(ExitCode::InputErrors);
  // (With --sweep the hook fires in the sweep's worker threads instead: EstimateCommand.cpp.)
  if (opts.debugForceInternalError && !(opts.estimate && !opts.sweep.empty()))
    CAKE_INTERNAL_ERROR("forced by --debug-force-internal-error");

  // 4. Verify: the Z3 proof obligations (src/verify), unless --no-verify.  A failed or unproven obligation is
  //    an error.  --verify-only stops after step 4b, and so does --verify-diagnostics when no output was
  //    asked for.
  bool outputRequested = opts.estimate || opts.emit || !opts.outputPath.empty();
  bool checkOnly = opts.verifyOnly || (opts.verifyDiagnostics && !outputRequested);
  std::string verdict = "verification skipped (--no-verify)";
  if (!opts.noVerify) {
    VerifyOptions verifyOptions;
    if (opts.verifyTimeoutMs) verifyOptions.timeoutMs = *opts.verifyTimeoutMs;
    // --rules FILE: read like a source file (its diagnostics point into it), parsed before any proof.
    std::optional<RuleSet> rules;
    if (!opts.rulesPath.empty()) {
      ReadResult rulesRead = readSourceFile(opts.rulesPath, sources, diags);
      if (!rulesRead.file) return finish(rulesRead.failure);
      rules = loadRules(sources, *rulesRead.file, diags);
      if (!rules) return finish(ExitCode::InputErrors);
      verifyOptions.rules = &*rules;
    }
    VerifyResult verified = verifyModule(*module, sema, verifyOptions, diags);
    times.mark("verify");
    if (!verified.allProven() || diags.hasErrors()) return finish(ExitCode::InputErrors);
    verdict = "verified: " + std::to_string(verified.proven) + " obligations proven";
  }
  if (checkOnly) {
    // 4b. "Verified" includes "it compiles": code generation to PTX in memory (no ptxas), so a construct
    //     that sema and the verifier accept but codegen cannot lower is reported here too.
    CodegenResult lowered = generatePtx(*module, sema, sema.arch, diags);
    times.mark("codegen");
    if (!lowered.ok || diags.hasErrors()) return finish(ExitCode::InputErrors);
    if (!opts.verifyDiagnostics)
      err << "cakec: " << sources.name(file) << ": " << verdict << " for " << archName(sema.arch) << '\n';
    return finish(ExitCode::Success);
  }

  // 5. Cost model (src/cost): --estimate [--sweep] prints predicted times and stops (EstimateCommand.h).
  //    Its pictures (--roofline, --timeline) are outputs like any other: never the input, written all or none
  //    at the end.
  if (opts.estimate) {
    std::vector<OutputFile> pictures;
    if (!opts.rooflinePath.empty()) pictures.push_back({opts.rooflinePath, ""});
    if (!opts.timelinePath.empty()) pictures.push_back({opts.timelinePath, ""});
    if (const OutputFile *clash = outputThatIsInput(pictures, read.identity)) {
      diags.report(DiagKind::OutputIsInput, SourceRange{}, clash->path).hint("choose another name for the picture");
      return finish(ExitCode::Usage);
    }
    std::vector<EstimatePicture> drawn;
    ExitCode estimated = runEstimate(opts, *module, sema, sources, file, diags, out, drawn);
    times.mark("estimate");
    if (estimated != ExitCode::Success || drawn.empty() || opts.verifyDiagnostics) return finish(estimated);
    pictures.clear();
    for (EstimatePicture &p : drawn) pictures.push_back({p.path, std::move(p.contents)});
    std::optional<OutputFailure> failure = writeOutputs(pictures, out);
    times.mark("write");
    if (failure) {
      diags.report(DiagKind::CannotWriteOutput, SourceRange{}, failure->path, failure->why);
      return finish(ExitCode::Environment);
    }
    return finish(estimated);
  }

  // 6. Code generation: canonical IR, or typed AST -> PTX [-> ptxas -> cubin + manifest]
  //    (src/codegen/Backend.h).  Nothing is written yet.
  std::vector<OutputFile> outputs;
  EmitKind emit = effectiveEmit(opts);
  if (emit == EmitKind::IR) {
    outputs.push_back({opts.outputPath.empty() ? "-" : opts.outputPath, std::move(asWritten)});
  } else {
    BackendRequest request;
    request.wantCubin = emit == EmitKind::Cubin;
    request.inputPath = opts.inputPath;
    request.generator = "cakec " + std::string(cakeVersion());
    request.outputPath = opts.outputPath;
    request.ptxasPath = opts.ptxasPath;
    request.verbose = opts.verbose;
    if (opts.ptxasTimeLimitSeconds) request.ptxasLimits.timeLimitSeconds = *opts.ptxasTimeLimitSeconds;
    if (opts.ptxasMemoryLimitMiB) request.ptxasLimits.memoryLimitMiB = *opts.ptxasMemoryLimitMiB;
    if (opts.ptxSizeLimitMiB) request.ptxSizeLimitBytes = uint64_t(*opts.ptxSizeLimitMiB) << 20;
    request.lineInfo = opts.lineInfo;
    request.saveTemps = opts.saveTemps;
    request.embedPtx = opts.embedPtx;
    request.maxRegisters = opts.maxRegisters;
    request.ptxasArgs = opts.ptxasArgs;
    BackendResult backend = runBackend(*module, sema, request, diags);
    times.mark("codegen", backend.codegenSeconds);
    if (backend.ptxasSeconds > 0) times.mark("ptxas", backend.ptxasSeconds);
    err << backend.statusText;
    if (backend.exitCode != 0) return finish(static_cast<ExitCode>(backend.exitCode));
    for (auto &[path, contents] : backend.files) outputs.push_back({path, std::move(contents)});
  }
  if (opts.verifyDiagnostics) return finish(ExitCode::Success);   // checks diagnostics only; writes nothing

  // 6b. No output may be the input itself (same inode): refuse before writing anything.
  if (const OutputFile *clash = outputThatIsInput(outputs, read.identity)) {
    diags.report(DiagKind::OutputIsInput, SourceRange{}, clash->path)
        .hint("choose another output name with -o");
    return finish(ExitCode::Usage);
  }

  // 7. Outputs, written only now that every stage succeeded: all of them or none.
  std::optional<OutputFailure> failure = writeOutputs(outputs, out);
  times.mark("write");
  if (failure) {
    diags.report(DiagKind::CannotWriteOutput, SourceRange{}, failure->path, failure->why);
    return finish(ExitCode::Environment);
  }
  return finish(ExitCode::Success);
}

} // namespace cake
