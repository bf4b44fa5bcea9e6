// Backend: PTX -> ptxas -> cubin + manifest, with ptxas errors mapped back to .cake ranges (see Backend.h).
#include "codegen/Backend.h"

#include "codegen/CodeGen.h"
#include "codegen/LineInfo.h"
#include "codegen/Ptxas.h"

#include <chrono>
#include <filesystem>
#include <sstream>

namespace cake {

std::string defaultOutputPath(const std::string &inputPath, std::string_view ext) {
  std::filesystem::path p(inputPath == "-" ? "stdin.cake" : inputPath);
  p.replace_extension(std::string(ext));
  return p.string();
}

namespace {
std::string ptxLineText(const std::string &ptx, unsigned line) {
  std::istringstream in(ptx);
  std::string text;
  for (unsigned i = 1; std::getline(in, text); ++i)
    if (i == line) return capQuoted(text);
  return "";
}

// --maxrregcount N: a `.maxnreg N` directive after each entry's `.maxntid` line.  (ptxas's own --maxrregcount
// does not bind an entry that declares .maxntid, and every cakec entry does.)  lineRanges stay in step.
void limitRegisters(CodegenResult &cg, unsigned maxRegisters) {
  std::istringstream in(cg.ptx);
  std::string text, line;
  std::vector<SourceRange> ranges;
  for (size_t i = 0; std::getline(in, line); ++i) {
    text += line + "\n";
    ranges.push_back(i < cg.lineRanges.size() ? cg.lineRanges[i] : SourceRange{});
    if (line.rfind(".maxntid", 0) == 0) {
      text += ".maxnreg " + std::to_string(maxRegisters) + "\n";
      ranges.push_back({});
    }
  }
  cg.ptx = std::move(text);
  cg.lineRanges = std::move(ranges);
}

// The source range of a PTX line: its own, else the nearest earlier line that has one.
SourceRange rangeOfPtxLine(const CodegenResult &cg, unsigned line) {
  for (unsigned l = std::min<unsigned>(line, static_cast<unsigned>(cg.lineRanges.size())); l >= 1; --l)
    if (cg.lineRanges[l - 1].valid()) return cg.lineRanges[l - 1];
  return {};
}
} // namespace

BackendResult runBackend(const Module &m, const SemaResult &sema, const BackendRequest &request,
                         DiagnosticEngine &diags) {
  BackendResult result;
  auto started = std::chrono::steady_clock::now();
  auto secondsSince = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  CodegenResult cg = generatePtx(m, sema, sema.arch, diags);
  if (!cg.ok) {
    result.exitCode = 1;
    return result;
  }
  if (request.maxRegisters) limitRegisters(cg, request.maxRegisters);
  if (request.lineInfo) addLineInfo(cg, diags.sources());
  result.codegenSeconds = secondsSince(started);
  if (!request.wantCubin) {
    std::string out = request.outputPath.empty() ? defaultOutputPath(request.inputPath, ".ptx") : request.outputPath;
    result.files.push_back({out, cg.ptx});
    return result;
  }
  // The PTX-size limit is checked before ptxas runs: ptxas time grows faster than linearly in the PTX
  // (2.6 MB of unrolled PTX took it 48 s), so a runaway unroll is stopped here, cheaply.
  if (request.ptxSizeLimitBytes && cg.ptx.size() > request.ptxSizeLimitBytes) {
    diags.report(DiagKind::PtxTooLarge, SourceRange{}, cg.ptx.size(), request.ptxSizeLimitBytes)
        .hint("unroll less (or fewer nested 'unroll' loops), or raise --ptx-size-limit");
    result.exitCode = 1;
    return result;
  }
  auto ptxas = findPtxas(request.ptxasPath);
  if (!ptxas) {
    diags.report(DiagKind::PtxasNotFound, SourceRange{},
                 request.ptxasPath.empty() ? std::string("no ptxas found in $CUDA_HOME/bin, PATH or /usr/local/cuda/bin")
                                           : "'" + request.ptxasPath + "' is not an executable file");
    result.exitCode = 3;
    return result;
  }
  std::vector<std::string> ptxasArgs = request.ptxasArgs;
  if (request.lineInfo) ptxasArgs.insert(ptxasArgs.begin(), "-lineinfo");
  started = std::chrono::steady_clock::now();
  PtxasResult pr = runPtxas(*ptxas, cg.ptx, std::string(archName(sema.arch)), /*verbose=*/true, request.ptxasLimits, ptxasArgs);
  result.ptxasSeconds = secondsSince(started);
  switch (pr.status) {
  case PtxasResult::Status::NotStarted:
    diags.report(DiagKind::PtxasNotFound, SourceRange{}, pr.launchError);
    result.exitCode = 3;
    return result;
  case PtxasResult::Status::TimedOut:
    diags.report(DiagKind::PtxasTimedOut, SourceRange{}, request.ptxasLimits.timeLimitSeconds)
        .hint("the kernel is probably too large (unrolling); raise the limit with --ptxas-time-limit=SECONDS");
    result.exitCode = 1;
    return result;
  case PtxasResult::Status::Crashed: {
    auto b = diags.report(DiagKind::PtxasCrashed, SourceRange{}, signalName(pr.signal));
    if (request.ptxasLimits.memoryLimitMiB)
      b.note(SourceRange{}, "ptxas ran with an address-space limit of " +
                                std::to_string(request.ptxasLimits.memoryLimitMiB) +
                                " MiB; a crash under it usually means ptxas ran out of memory");
    b.hint("raise --ptxas-memory-limit=MIB if the kernel is large; otherwise check the ptxas installation");
    result.exitCode = 3;
    return result;
  }
  case PtxasResult::Status::Exited: break;
  }
  if (pr.exitCode == 0 && pr.cubinMissing) {
    diags.report(DiagKind::PtxasNoCubin, SourceRange{}, *ptxas);
    result.exitCode = 3;
    return result;
  }
  if (pr.exitCode != 0) {
    bool any = false;
    for (const PtxasMessage &msg : pr.messages) {
      if (!msg.isError) continue;
      any = true;
      SourceRange where = msg.ptxLine ? rangeOfPtxLine(cg, msg.ptxLine) : SourceRange{};
      auto b = diags.report(DiagKind::PtxasError, where, msg.text);
      if (msg.ptxLine) b.note(SourceRange{}, "PTX line " + std::to_string(msg.ptxLine) + ": " + ptxLineText(cg.ptx, msg.ptxLine));
    }
    if (!any) {
      std::string text = pr.output.empty() ? "ptxas exited with status " + std::to_string(pr.exitCode) : pr.output;
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
      diags.report(DiagKind::PtxasError, SourceRange{}, capQuoted(text));
    }
    result.exitCode = 1;
    return result;
  }
  // E0717: spills ptxas reported, at the kernel's name (a warning; -Werror=spills stops the compile here).
  for (const PtxasFunctionReport &f : pr.functions) {
    if (f.spillStores == 0 && f.spillLoads == 0) continue;
    SourceRange where;
    for (const auto &k : m.kernels)
      if (k && k->name == f.function) where = k->nameRange;
    diags.report(DiagKind::RegisterSpills, where, f.function, f.spillStores, f.spillLoads)
        .hint("shrink what is live at once, or raise the register budget (regs(..), --maxrregcount)");
  }
  if (diags.hasErrors()) {
    result.exitCode = 1;
    return result;
  }
  std::string image = std::move(pr.cubin);
  if (request.embedPtx) {
    std::string why;
    std::optional<std::string> fatbin =
        runFatbinary(*ptxas, image, cg.ptx, std::string(archName(sema.arch)), request.ptxasLimits, why);
    if (!fatbin) {
      diags.report(DiagKind::FatbinaryFailed, SourceRange{}, why);
      result.exitCode = 3;
      return result;
    }
    image = std::move(*fatbin);
    cg.manifest.ptxEmbedded = true;
  }
  std::string out = request.outputPath.empty() ? defaultOutputPath(request.inputPath, ".cubin") : request.outputPath;
  cg.manifest.cubin = std::filesystem::path(out).filename().string();
  cg.manifest.source = request.inputPath;
  cg.manifest.generator = request.generator;
  cg.manifest.cubinSha256 = sha256Hex(image);
  cg.manifest.ptxasPath = *ptxas;
  cg.manifest.ptxasVersion = ptxasVersion(*ptxas, request.ptxasLimits);
  result.files.push_back({out, image});
  if (out != "-") result.files.push_back({out + ".json", manifestToJson(cg.manifest)});   // beside the cubin
  if (request.saveTemps && out != "-") result.files.push_back({defaultOutputPath(out, ".ptx"), cg.ptx});
  if (request.verbose) {
    std::ostringstream os;
    for (const PtxasFunctionReport &f : pr.functions)
      os << "cakec: " << f.function << " (" << archName(sema.arch) << "): " << f.registers << " registers, "
         << f.sharedBytes << " bytes static smem, " << f.stackBytes << " bytes stack, " << f.spillStores
         << " bytes spill stores, " << f.spillLoads << " bytes spill loads\n";
    for (const PtxasFunctionReport &f : pr.functions)
      if (!f.wgmmaSerialized.empty())
        os << "cakec: " << f.function << ": ptxas serialized its wgmma instructions (C7518): " << f.wgmmaSerialized
           << "\n";
    for (const KernelManifest &k : cg.manifest.kernels)
      os << "cakec: " << k.name << ": " << k.dynamicSmem << " bytes dynamic shared memory\n";
    result.statusText = os.str();
  }
  return result;
}

} // namespace cake
