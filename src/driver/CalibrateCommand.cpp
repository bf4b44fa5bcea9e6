// cakec calibrate: fitting a machine description to measurements (see CalibrateCommand.h).
#include "driver/CalibrateCommand.h"

#include "cost/Calibration.h"
#include "cost/Measurements.h"
#include "cost/Report.h"
#include "cost/ShapeBinding.h"
#include "driver/Driver.h"
#include "driver/EstimateCommand.h"
#include "support/ProgressBar.h"
#include "support/ReadFile.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace cake {

namespace {

// Measurements files and the kernel files they name are bounded like cakec's input (64 MiB, any kind of
// file): `why` says what went wrong.
constexpr uint64_t kMaxCalibrateInputBytes = 64ull << 20;
std::optional<std::string> readText(const std::string &path, std::string *why = nullptr) {
  ReadFileResult read = readFileBounded(path, kMaxCalibrateInputBytes);
  if (read.ok()) return std::move(read.text);
  if (why)
    *why = read.status == ReadFileResult::TooLarge
               ? "the file is larger than " + std::to_string(kMaxCalibrateInputBytes >> 20) + " MiB"
               : read.error;
  return std::nullopt;
}

// kernel_file relative to the current directory, else to the measurements file and its parents.  A name the
// file system rejects (too long, a loop) is "not found", never an exception.
std::optional<std::string> locate(const std::string &file, const std::string &measurementsPath) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(file, ec)) return file;
  fs::path dir = fs::absolute(measurementsPath, ec).parent_path();
  if (ec) return std::nullopt;
  for (int up = 0; up < 4 && !dir.empty(); ++up, dir = dir.parent_path())
    if (fs::exists(dir / file, ec)) return (dir / file).string();
  return std::nullopt;
}

std::string pct(double x) {
  std::ostringstream os;
  os << std::showpos << std::fixed << std::setprecision(1) << x * 100 << "%";
  return os.str();
}

void printAccuracy(const char *what, const cost::Accuracy &a, std::ostream &os) {
  os << what << ": n=" << a.n << ", Spearman rho=" << std::fixed << std::setprecision(3) << a.spearman
     << ", median |error|=" << std::setprecision(1) << a.medianAbsError * 100 << "%, max |error|="
     << a.maxAbsError * 100 << "%\n" << std::defaultfloat;
}

} // namespace

int runCalibrateCommand(int argc, char **argv) {
  CLI::App app{"cakec calibrate: fit a machine description's efficiency parameters to measured run times"};
  app.name("cakec calibrate");
  std::string input, output, machineSpec = "h200";
  unsigned holdoutEvery = 0;
  bool forceInternalError = false;
  bool noProgress = false;
  app.add_option("MEASUREMENTS", input, "measurements JSON (format: docs/cost-model.md)")->required();
  app.add_option("-o,--output", output, "where to write the calibrated machine description")->required();
  app.add_option("--machine", machineSpec, "prior machine description NAME or PATH (default h200)");
  app.add_option("--holdout-every", holdoutEvery, "hold every K-th measurement out of the fit and report on it")
      ->check(CLI::Range(2u, 1000u));
  app.add_flag("--no-progress", noProgress, "no progress bar on stderr (shown only on a terminal, after a second)");
  app.add_flag("--debug-force-internal-error", forceInternalError, "testing: raise an internal compiler error")
      ->group("");   // hidden
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "cakec calibrate: error: " << e.what() << "\nRun with --help for more information.\n";
    return static_cast<int>(ExitCode::Usage);
  }
  if (forceInternalError) CAKE_INTERNAL_ERROR("forced by --debug-force-internal-error");
  SourceManager none;
  DiagnosticEngine diags(none);
  auto fail = [&](ExitCode code) {
    diags.renderText(std::cerr);
    return static_cast<int>(code);
  };

  cost::MachineLoadResult prior = cost::findMachine(machineSpec, Arch::SM90a);
  if (!prior.machine) {
    diags.report(DiagKind::MachineUnavailable, SourceRange{}, machineSpec, prior.error);
    return fail(ExitCode::InputErrors);
  }
  std::string why;
  std::optional<std::string> text = readText(input, &why);
  if (!text) {
    diags.report(DiagKind::CannotReadFile, SourceRange{}, input, why);
    return fail(ExitCode::Environment);
  }
  cost::MeasurementsLoad loaded = cost::parseMeasurements(*text);
  if (!loaded.set) {
    diags.report(DiagKind::CalibrationInput, SourceRange{}, input, loaded.error);
    return fail(ExitCode::InputErrors);
  }

  std::vector<cost::CalibrationSample> train, held;
  std::vector<std::string> trainLabels, heldLabels;
  size_t index = 0, skipped = 0;
  ProgressBar progress("calibrate: analysing measurements", loaded.set->items.size(),
                       !noProgress && ProgressBar::stderrIsTerminal());
  for (const cost::Measurement &m : loaded.set->items) {
    struct Done {   // counts the measurement however this iteration ends
      ProgressBar &bar;
      ~Done() { bar.advance(); }
    } done{progress};
    bool holdout = holdoutEvery && index % holdoutEvery == holdoutEvery - 1;
    ++index;
    std::optional<std::string> path = locate(m.kernelFile, input);
    std::string whyNot = "not found";
    std::optional<std::string> source = path ? readText(*path, &whyNot) : std::nullopt;
    if (!source) {
      std::cout << "skip  " << m.label << ": cannot read " << (m.kernelFile.size() > 200 ? m.kernelFile.substr(0, 200) + "..." : m.kernelFile) << " (" << whyNot << ")\n";
      ++skipped;
      continue;
    }
    VariantRequest request;
    request.name = m.kernelFile;
    request.text = *source;
    request.defines = m.defines;
    request.arch = m.arch;
    request.verify = false;
    cost::VariantOutcome outcome = analyzeVariant(request, *prior.machine, m.shape);
    const cost::Estimate *estimate = nullptr;
    for (const cost::Estimate &e : outcome.estimates)
      if (m.kernel.empty() || e.kernel == m.kernel) {
        estimate = &e;
        break;
      }
    if (!outcome.ok() || !estimate) {
      std::cout << "skip  " << m.label << ": " << (outcome.ok() ? "no kernel '" + m.kernel + "'" : outcome.reason)
                << "\n";
      ++skipped;
      continue;
    }
    cost::CalibrationSample sample{m.label, estimate->profile, estimate->occupancy, m.ms * 1e-3};
    (holdout ? held : train).push_back(std::move(sample));
  }
  progress.finish();

  if (train.empty()) {
    diags.report(DiagKind::CalibrationInput, SourceRange{}, input, "no measurement could be estimated");
    return fail(ExitCode::InputErrors);
  }

  cost::CalibrationResult fit = cost::calibrate(*prior.machine, train);
  fit.machine.sources["calibration"] = "fitted by cakec calibrate on " + std::to_string(train.size()) +
                                       " measurements of " + input +
                                       (held.empty() ? "" : " (" + std::to_string(held.size()) + " held out)");
  for (const std::string &p : fit.parameters) fit.machine.sources[p] = "fitted by cakec calibrate (" + input + ")";

  auto report = [&](const char *set, const std::vector<cost::CalibrationSample> &samples) {
    std::vector<double> before = cost::predictSeconds(*prior.machine, samples);
    std::vector<double> after = cost::predictSeconds(fit.machine, samples);
    std::vector<double> measured;
    for (size_t i = 0; i < samples.size(); ++i) {
      measured.push_back(samples[i].measuredSeconds);
      std::cout << std::left << std::setw(6) << set << std::setw(44) << samples[i].label << " measured "
                << std::setw(10) << cost::formatSeconds(samples[i].measuredSeconds) << " prior " << std::setw(10)
                << cost::formatSeconds(before[i]) << " fitted " << std::setw(10) << cost::formatSeconds(after[i])
                << " " << pct(after[i] / samples[i].measuredSeconds - 1) << "\n";
    }
    return std::make_pair(cost::accuracy(before, measured), cost::accuracy(after, measured));
  };
  auto [trainBefore, trainAfter] = report("train", train);
  std::pair<cost::Accuracy, cost::Accuracy> heldStats;
  if (!held.empty()) heldStats = report("held", held);
  std::cout << "\nfitted parameters:";
  for (const std::string &p : fit.parameters) std::cout << " " << p;
  std::cout << "\nmean squared log error: " << fit.lossBefore << " -> " << fit.lossAfter << "\n";
  printAccuracy("train, prior ", trainBefore, std::cout);
  printAccuracy("train, fitted", trainAfter, std::cout);
  if (!held.empty()) {
    printAccuracy("held out, prior ", heldStats.first, std::cout);
    printAccuracy("held out, fitted", heldStats.second, std::cout);
  }
  if (skipped) std::cout << skipped << " measurement(s) skipped\n";

  std::ofstream out(output, std::ios::binary);
  out << cost::machineToJson(fit.machine);
  if (!out) {
    diags.report(DiagKind::CannotWriteOutput, SourceRange{}, output, "write failed");
    return fail(ExitCode::Environment);
  }
  std::cout << "wrote " << output << "\n";
  return static_cast<int>(ExitCode::Success);
}

} // namespace cake
