// cakec run: a kernel on the CPU interpreter (see RunCommand.h).
#include "driver/RunCommand.h"

#include "driver/Driver.h"
#include "frontend/Inline.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "interp/Interpreter.h"
#include "interp/Npy.h"
#include "support/ReadFile.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <string>
#include <vector>
#include <iostream>

namespace cake {

namespace {

constexpr uint64_t kMaxRunFileBytes = 1ull << 30;   // .npy inputs (and the 64 MiB source limit below)

struct Binding {
  std::string param;   // empty: the next tensor parameter in order
  std::string path;
};

std::vector<Binding> parseBindings(const std::vector<std::string> &items) {
  std::vector<Binding> out;
  for (const std::string &item : items) {
    size_t eq = item.find('=');
    if (eq == std::string::npos) out.push_back({"", item});
    else out.push_back({item.substr(0, eq), item.substr(eq + 1)});
  }
  return out;
}

} // namespace

int runRunCommand(int argc, char **argv) {
  CLI::App app{"cakec run: execute a kernel on the CPU interpreter"};
  app.name("cakec run");
  std::string input, kernelName, shapeText, formatName = "text";
  std::vector<std::string> inputs, outputs, scalars, defineTexts;
  uint64_t seed = 0, maxSteps = 200'000'000, schedules = 1;
  int64_t numSms = 132;
  bool shapeAuto = false, noRaceCheck = false;
  app.add_option("FILE", input, "input .cake file")->required();
  app.add_option("--kernel", kernelName, "the kernel to run (default: the file's only kernel)");
  app.add_option("--shape", shapeText, "shape variables not fixed by the inputs, e.g. N=1000,G=1");
  app.add_option("--inputs", inputs, "input .npy files: PATH (the next tensor parameter) or PARAM=PATH")->delimiter(',');
  app.add_option("--outputs", outputs, "output .npy files: PATH (the next tensor parameter after the inputs) or PARAM=PATH")
      ->delimiter(',');
  app.add_option("--scalar", scalars, "scalar parameters: NAME=VALUE,...")->delimiter(',');
  app.add_option("-D,--define", defineTexts, "override a compile-time parameter: -D NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--seed", seed, "warp schedule: 0 (default) runs the lowest runnable warp first, others pick at random");
  app.add_option("--schedules", schedules,
                 "schedule explorer: run N schedules (--seed S, S+1, ...), stop at the first that fails, warn (E0915) "
                 "when the outputs differ")->check(CLI::Range(uint64_t(1), uint64_t(1) << 32));
  app.add_flag("--shape-auto", shapeAuto,
               "give the shape variables that nothing fixes values from 256, 128, 64, 512, 1024, 32, 16, 8, 1 that "
               "satisfy requires(..): one value for all first, then each its own");
  app.add_option("--num-sms", numSms, "the value of num_sms in grid expressions (default 132, the H200's)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 20));
  app.add_flag("--no-race-check", noRaceCheck, "skip the shared-memory race, proxy and uninitialised-read checks (E0912-E0914)");
  app.add_option("--max-steps", maxSteps, "stop after this many warp statements (default 200000000)")->check(CLI::Range(uint64_t(1), uint64_t(1) << 62));
  app.add_option("--diagnostics-format", formatName, "text (stderr, default) or json (stdout)")
      ->check(CLI::IsMember({"text", "json"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "cakec run: error: " << e.what() << "\nRun with --help for more information.\n";
    return static_cast<int>(ExitCode::Usage);
  }
  bool json = formatName == "json";
  auto usage = [&](const std::string &message) {
    return static_cast<int>(reportUsageError(DiagKind::CommandLineError, {message}, json ? DiagFormat::Json : DiagFormat::Text,
                                             std::cout, std::cerr));
  };

  interp::RunRequest request;
  request.seed = seed;
  request.maxSteps = maxSteps;
  request.checkRaces = !noRaceCheck;
  request.numSms = numSms;
  SemaOptions semaOptions;
  for (const std::string &d : defineTexts) {
    auto def = parseDefine(d);
    if (!def) return usage("malformed -D '" + d + "': expected NAME=INTEGER");
    semaOptions.defines[def->first] = def->second;
  }
  if (!shapeText.empty()) {
    auto shape = parseShape(shapeText);
    if (!shape) return usage("malformed --shape '" + shapeText + "': expected NAME=INTEGER,...");
    request.shape = *shape;
  }
  for (const std::string &s : scalars) {
    size_t eq = s.find('=');
    char *end = nullptr;
    double v = eq == std::string::npos ? 0 : std::strtod(s.c_str() + eq + 1, &end);
    if (eq == std::string::npos || eq == 0 || !end || *end != '\0' || end == s.c_str() + eq + 1)
      return usage("malformed --scalar '" + s + "': expected NAME=NUMBER");
    request.scalars[s.substr(0, eq)] = v;
  }

  SourceManager sources;
  DiagnosticEngine diags(sources);
  auto finish = [&](ExitCode code) {
    if (json) diags.renderJson(std::cout);
    else diags.renderText(std::cerr);
    return static_cast<int>(code);
  };
  ReadFileResult source = readFileBounded(input, 64ull << 20);
  if (!source.ok()) {
    diags.report(DiagKind::CannotReadFile, SourceRange{}, input, source.status == ReadFileResult::TooLarge ? "larger than 64 MiB" : source.error);
    return finish(ExitCode::Environment);
  }
  uint32_t file = sources.addBuffer(input, std::move(source.text));
  Ptr<Module> module = parseModule(sources, file, diags);
  if (diags.hasErrors()) return finish(ExitCode::InputErrors);
  // The kernel to run; the file's other kernels are dropped before sema, as `cakec --kernel` does (the -D
  // values may suit only the one run).
  if (module->kernels.empty()) return usage("the file has no kernel to run");
  if (kernelName.empty() && module->kernels.size() != 1)
    return usage("the file has several kernels (" + kernelNames(*module) + "): choose one with --kernel");
  if (!kernelName.empty() && keepOnlyKernels(*module, {kernelName}))
    return usage("no kernel '" + kernelName + "' (the file has: " + kernelNames(*module) + ")");
  if (!inlineFunctions(*module, sources, diags) || diags.hasErrors()) return finish(ExitCode::InputErrors);
  SemaResult sema = analyzeModule(*module, semaOptions, diags);
  if (diags.hasErrors() || !sema.ok) return finish(ExitCode::InputErrors);
  const Kernel *kernel = module->kernels.front().get();

  // Tensor parameters in declaration order; inputs take them first, outputs the ones after.
  std::vector<const Param *> tensors;
  for (const Ptr<Param> &p : kernel->params)
    if (p->type && p->type->isTensor()) tensors.push_back(p.get());
  size_t next = 0;
  auto resolve = [&](const Binding &b, std::string &error) -> const Param * {
    if (b.param.empty()) {
      if (next >= tensors.size()) {
        error = "more files than tensor parameters";
        return nullptr;
      }
      return tensors[next++];
    }
    for (const Param *p : tensors)
      if (p->name == b.param) return p;
    error = "kernel '" + kernel->name + "' has no tensor parameter '" + b.param + "'";
    return nullptr;
  };
  for (const Binding &b : parseBindings(inputs)) {
    std::string error;
    const Param *p = resolve(b, error);
    if (!p) return usage("--inputs " + b.path + ": " + error);
    ReadFileResult bytes = readFileBounded(b.path, kMaxRunFileBytes);
    if (!bytes.ok()) {
      diags.report(DiagKind::CannotReadFile, SourceRange{}, b.path, bytes.status == ReadFileResult::TooLarge ? "larger than 1 GiB" : bytes.error);
      return finish(ExitCode::Environment);
    }
    std::string why;
    std::optional<interp::HostTensor> t = interp::readNpy(bytes.text, p->type->elementScalar(), why);
    if (!t) {
      diags.report(DiagKind::InterpBadArgument, p->nameRange, p->name, b.path + ": " + why);
      return finish(ExitCode::InputErrors);
    }
    request.tensors[p->name] = std::move(*t);
  }
  std::vector<std::pair<const Param *, std::string>> outputFiles;
  for (const Binding &b : parseBindings(outputs)) {
    std::string error;
    const Param *p = resolve(b, error);
    if (!p) return usage("--outputs " + b.path + ": " + error);
    outputFiles.emplace_back(p, b.path);
  }

  if (shapeAuto) {
    // The same value for every free shape variable first, then each its own (lexicographically, the last
    // variable fastest, at most kMaxShapeProbes combinations): the first that requires(..) accepts.
    constexpr int64_t kValues[] = {256, 128, 64, 512, 1024, 32, 16, 8, 1};
    constexpr size_t kCount = sizeof(kValues) / sizeof(kValues[0]);
    constexpr uint64_t kMaxShapeProbes = 1 << 14;
    std::vector<std::string> free;
    for (const Ptr<ShapeVar> &sv : kernel->shapeVars)
      if (!request.shape.count(sv->name)) free.push_back(sv->name);
    auto fits = [&](const std::vector<size_t> &choice) {
      interp::RunRequest probe = request;
      probe.dryRun = true;
      for (size_t i = 0; i < free.size(); ++i) probe.shape[free[i]] = kValues[choice[i]];
      DiagnosticEngine scratch(sources);
      if (!interp::runKernel(*kernel, sema, probe, scratch).ok) return false;
      request.shape = probe.shape;
      return true;
    };
    bool found = false;
    for (size_t v = 0; v < kCount && !found; ++v) found = fits(std::vector<size_t>(free.size(), v));
    std::vector<size_t> choice(free.size(), 0);
    for (uint64_t probes = 0; !found && !free.empty() && probes < kMaxShapeProbes; ++probes) {
      found = fits(choice);
      size_t i = free.size();
      while (i-- > 0 && ++choice[i] == kCount) choice[i] = 0;   // the next combination
      if (i == size_t(-1)) break;                              // all tried
    }
  }

  interp::RunResult result = interp::runKernel(*kernel, sema, request, diags);
  if (!result.ok) return finish(ExitCode::InputErrors);
  // The schedule explorer: more seeds, each one interleaving; the first failure stops it.
  uint64_t ran = 1;
  for (uint64_t i = 1; i < schedules; ++i, ++ran) {
    interp::RunRequest again = request;
    again.seed = seed + i;
    interp::RunResult other = interp::runKernel(*kernel, sema, again, diags);
    if (!other.ok) {
      if (!json)
        std::cerr << "cakec run: " << kernel->name << ": schedule " << i + 1 << " of " << schedules << " (--seed " << again.seed
                  << ") failed\n";
      return finish(ExitCode::InputErrors);
    }
    bool differs = false;
    for (auto &[name, t] : result.tensors) {
      const interp::HostTensor &u = other.tensors.at(name);
      if (t.bytes == u.bytes) continue;
      int64_t at = 0;
      while (at < t.elements() && t.at(at) == u.at(at)) ++at;
      if (at == t.elements()) continue;   // NaN payloads
      diags.report(DiagKind::InterpScheduleDependent, kernel->nameRange, name, std::to_string(at), std::to_string(t.at(at)),
                   std::to_string(seed), std::to_string(u.at(at)), std::to_string(again.seed));
      differs = true;
      break;
    }
    if (differs) {
      ++ran;
      break;
    }
  }
  for (auto &[param, path] : outputFiles) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << interp::writeNpy(result.tensors.at(param->name));
    out.close();
    if (!out) {
      diags.report(DiagKind::CannotWriteOutput, SourceRange{}, path, "write failed");
      return finish(ExitCode::Environment);
    }
  }
  if (!json) {
    std::cerr << "cakec run: " << kernel->name << ": " << result.steps << " warp statements";
    if (schedules > 1) std::cerr << "; " << ran << " schedules (--seed " << seed << " .. " << seed + ran - 1 << ")";
    std::cerr << "\n";
  }
  return finish(ExitCode::Success);
}

} // namespace cake
