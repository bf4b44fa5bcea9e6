// cakec library build (see LibraryCommand.h): the library pipeline as one function, runLibraryBuild.
#include "driver/LibraryCommand.h"

#include "Manifest.h"
#include "driver/Driver.h"
#include "driver/LibraryEstimate.h"
#include "library/LibrarySpec.h"
#include "library/TableCheck.h"
#include "support/ReadFile.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

namespace cake {

namespace {

namespace fs = std::filesystem;
using library::BuiltKernel;
using library::BuiltVariant;
using library::LibrarySpec;

constexpr uint64_t kMaxSpecBytes = 16ull << 20;

struct BuildOptions {
  std::string spec, outDir, ptxas;
  unsigned verifyTimeoutMs = 10000;
  bool color = false;
};

std::string locText(const SourceManager &sources, SourceRange range) {
  if (!range.valid()) return "";
  LineCol lc = sources.lineCol(range.begin);
  return std::string(sources.name(range.begin.file)) + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

// One cakec compilation of a library build: a source with its defines, built into FILE_STEM.cubin and its
// manifest.
struct CompileUnit {
  std::string source;
  std::map<std::string, int64_t> defines;
  std::map<std::string, std::string> typeDefines;
  std::vector<std::string> kernels;   // cakec --kernel (empty: all of the source's)
  std::string arch;
  std::vector<std::string> options;
  std::string fileStem;               // the output's name (the first variant or step that needs it)
  SourceRange range;                  // that variant's name in the spec
  std::string what;                   // for the log: "variant v8", "variant v8, then[0]"
};

fs::path sourcePath(const std::string &source, const fs::path &specDir) {
  fs::path p = source;
  return (p.is_absolute() ? p : specDir / p).lexically_normal();
}

// What makes two units the same cubin: everything but the file name.
std::string unitKey(const CompileUnit &u, const fs::path &specDir) {
  nlohmann::json key = {sourcePath(u.source, specDir).string(), u.defines, u.typeDefines, u.kernels, u.arch, u.options};
  return key.dump();
}

// Compiles `unit` (arch and options already checked); nullopt after a diagnostic, with `failure` set when
// the build must stop (an internal or environment error).
std::optional<BuiltKernel> compileUnit(const CompileUnit &unit, const fs::path &specDir, const BuildOptions &opts,
                                       DiagnosticEngine &diags, ExitCode &failure) {
  DriverOptions d;
  d.inputPath = sourcePath(unit.source, specDir).string();
  d.outputPath = (fs::path(opts.outDir) / (unit.fileStem + ".cubin")).string();
  d.emit = EmitKind::Cubin;
  if (!unit.arch.empty()) d.arch = parseArch(unit.arch);
  d.defines = unit.defines;
  d.typeDefines = unit.typeDefines;
  d.kernels = unit.kernels;
  d.ptxasPath = opts.ptxas;
  d.verifyTimeoutMs = opts.verifyTimeoutMs;
  d.color = opts.color;
  d.noVerify = std::find(unit.options.begin(), unit.options.end(), "--no-verify") != unit.options.end();
  std::cerr << "cakec library: " << unit.what << ": " << d.inputPath << "\n";
  ExitCode code = runDriver(d, std::cout, std::cerr);
  if (code == ExitCode::Internal || code == ExitCode::Environment) {
    failure = code;
    return std::nullopt;
  }
  if (code != ExitCode::Success) {
    diags.report(DiagKind::LibraryVariantFailed, unit.range, unit.fileStem, d.inputPath);
    return std::nullopt;
  }
  BuiltKernel b;
  b.manifestFile = unit.fileStem + ".cubin.json";
  ReadFileResult manifest = readFileBounded(d.outputPath + ".json", kMaxSpecBytes);
  if (!manifest.ok())
    throw InternalError("cakec library: the manifest " + d.outputPath + ".json just written cannot be read");
  try {
    b.manifest = std::make_shared<const rt::ManifestSpec>(rt::parseManifest(manifest.text));
  } catch (const rt::ManifestError &e) {
    throw InternalError("cakec library: the runtime refuses the manifest cakec wrote for " + unit.fileStem + ": " +
                        e.what());
  }
  return b;
}

nlohmann::ordered_json definesJson(const std::map<std::string, int64_t> &defines,
                                   const std::map<std::string, std::string> &typeDefines) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto &[name, value] : defines) j[name] = value;
  for (const auto &[name, value] : typeDefines) j[name] = value;
  return j;
}

// library.json (format `cake-library`, docs/library.md), keys in a fixed order.
std::string libraryJson(const LibrarySpec &spec, const std::vector<BuiltVariant> &variants,
                        const std::vector<library::ShapeVarSource> &shapeVars, const SourceManager &sources) {
  nlohmann::ordered_json j;
  j["format"] = "cake-library";
  j["version"] = 1;
  j["generator"] = "cakec " + std::string(cakeVersion());
  j["name"] = spec.name;
  j["source"] = fs::path(spec.path).filename().string();
  j["shape_vars"] = nlohmann::ordered_json::array();
  for (const auto &s : shapeVars) {
    nlohmann::ordered_json v;
    v["name"] = s.name;
    if (s.param >= 0)
      v["from"] = {{"param", s.param}, {"dim", s.dim}};
    else
      v["from"] = nullptr;
    j["shape_vars"].push_back(v);
  }
  if (spec.domain.valid()) j["domain"] = spec.domain.text();
  j["variants"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < variants.size(); ++i) {
    const library::VariantSpec &vs = spec.variants[i];
    nlohmann::ordered_json v;
    v["name"] = vs.name;
    v["manifest"] = variants[i].first.manifestFile;
    v["kernel"] = variants[i].first.spec().name;
    if (!vs.then.empty()) {
      v["then"] = nlohmann::ordered_json::array();
      for (size_t k = 0; k < vs.then.size(); ++k) {
        const BuiltKernel &step = variants[i].then[k];
        if (vs.then[k].source.empty())
          v["then"].push_back(step.spec().name);
        else
          v["then"].push_back({{"manifest", step.manifestFile}, {"kernel", step.spec().name},
                               {"source", vs.then[k].source}, {"defines", definesJson(vs.then[k].defines,
                                                                                       vs.then[k].typeDefines)}});
      }
    }
    if (!vs.workspace.empty()) v["workspace"] = vs.workspace;
    v["arch"] = variants[i].arch();
    v["source"] = vs.source;
    v["defines"] = definesJson(vs.defines, vs.typeDefines);
    j["variants"].push_back(v);
  }
  j["dispatch"] = nlohmann::ordered_json::array();
  for (const library::EntrySpec &e : spec.entries) {
    nlohmann::ordered_json v;
    if (e.fallback)
      v["fallback"] = true;
    else
      v["guard"] = e.guard.text();
    v["variant"] = spec.variants[e.variant].name;
    v["loc"] = locText(sources, e.range);
    j["dispatch"].push_back(v);
  }
  return j.dump(2) + "\n";
}

ExitCode runLibraryBuild(const BuildOptions &opts) {
  SourceManager sources;
  DiagnosticEngine diags(sources);
  auto finish = [&](ExitCode code) {
    diags.renderText(std::cerr, opts.color);
    return diags.hasErrors() && code == ExitCode::Success ? ExitCode::InputErrors : code;
  };
  ReadFileResult text = readFileBounded(opts.spec, kMaxSpecBytes);
  if (!text.ok()) {
    diags.report(DiagKind::CannotReadFile, SourceRange{}, opts.spec,
                 text.status == ReadFileResult::TooLarge ? std::string("larger than 16 MiB") : text.error);
    return finish(ExitCode::Environment);
  }
  uint32_t file = sources.addBuffer(opts.spec, text.text);
  std::optional<LibrarySpec> spec = library::readLibrarySpec(sources, file, diags);
  if (!spec) return finish(ExitCode::InputErrors);

  std::error_code ec;
  fs::create_directories(opts.outDir, ec);
  if (ec || !fs::is_directory(opts.outDir)) {
    diags.report(DiagKind::CannotWriteOutput, SourceRange{}, opts.outDir, ec ? ec.message() : "not a directory");
    return finish(ExitCode::Environment);
  }

  // 1. Compile every variant with the ordinary pipeline: its own source, and the source of each "then" step
  //    that names another (one cubin per distinct source and defines, shared by the variants that use it).
  const fs::path specDir = fs::path(opts.spec).parent_path();
  std::map<std::string, BuiltKernel> units;   // unitKey -> its manifest (kernel index unset)
  std::vector<BuiltVariant> built;
  for (const library::VariantSpec &v : spec->variants) {
    if (!v.arch.empty() && !parseArch(v.arch)) {
      diags.report(DiagKind::LibrarySpecMalformed, v.range, "unknown arch '" + v.arch + "' of variant '" + v.name + "'");
      return finish(ExitCode::InputErrors);
    }
    for (const std::string &o : v.options)
      if (o != "--no-verify") {
        diags.report(DiagKind::LibrarySpecMalformed, v.range,
                     "option '" + o + "' of variant '" + v.name + "' is not one a library variant takes (--no-verify)");
        return finish(ExitCode::InputErrors);
      }
    // The kernel `name` of the unit compiled from `unit`; nullopt after a diagnostic (or with `failure` set).
    ExitCode failure = ExitCode::Success;
    auto kernelOf = [&](const CompileUnit &unit, const std::string &name, const std::string &what) -> std::optional<BuiltKernel> {
      std::string key = unitKey(unit, specDir);
      auto it = units.find(key);
      if (it == units.end()) {
        std::optional<BuiltKernel> compiled = compileUnit(unit, specDir, opts, diags, failure);
        if (!compiled) return std::nullopt;
        it = units.emplace(key, *compiled).first;
      }
      BuiltKernel k = it->second;
      const auto &kernels = k.manifest->kernels;
      if (name.empty() && kernels.size() != 1) {
        std::string names;
        for (const auto &x : kernels) names += (names.empty() ? "" : ", ") + x.name;
        diags.report(DiagKind::LibraryUnknownKernel, v.range, v.name,
                     "its source has " + std::to_string(kernels.size()) + " kernels (" + names +
                         "); name one with \"kernel\"");
        return std::nullopt;
      }
      auto found = std::find_if(kernels.begin(), kernels.end(), [&](const rt::KernelSpec &x) { return x.name == name; });
      if (!name.empty() && found == kernels.end()) {
        diags.report(DiagKind::LibraryUnknownKernel, v.range, v.name,
                     (unit.source == v.source ? "its source" : unit.source) + " has no kernel '" + name + "'" + what);
        return std::nullopt;
      }
      k.kernel = name.empty() ? 0 : static_cast<size_t>(found - kernels.begin());
      return k;
    };
    CompileUnit own{v.source, v.defines, v.typeDefines, v.compile, v.arch, v.options, v.name, v.range, "variant " + v.name};
    std::optional<BuiltKernel> first = kernelOf(own, v.kernel, "");
    if (failure != ExitCode::Success) return finish(failure);
    if (!first) continue;
    BuiltVariant b;
    b.first = *first;
    bool complete = true;
    for (size_t i = 0; i < v.then.size(); ++i) {
      const library::StepSpec &step = v.then[i];
      CompileUnit other{step.source, step.defines, step.typeDefines, {step.kernel}, v.arch, v.options,
                        v.name + ".then" + std::to_string(i), v.range,
                        "variant " + v.name + ", then[" + std::to_string(i) + "]"};
      std::optional<BuiltKernel> k = kernelOf(step.source.empty() ? own : other, step.kernel, " (\"then\")");
      if (failure != ExitCode::Success) return finish(failure);
      if (k)
        b.then.push_back(*k);
      else
        complete = false;
    }
    b.workspace = v.workspace;
    if (complete) built.push_back(std::move(b));
  }
  if (diags.hasErrors()) return finish(ExitCode::InputErrors);

  // 2. Signatures, shape variables, then the dispatch table.
  auto shapeVars = library::resolveShapeVars(*spec, built, diags);
  if (!shapeVars) return finish(ExitCode::InputErrors);
  library::checkDispatchTable(*spec, built, *shapeVars, sources, diags, std::max(opts.verifyTimeoutMs, spec->tableCheckMs));
  if (diags.hasErrors()) return finish(ExitCode::InputErrors);

  // 3. library.json, through a temporary file renamed into place.
  fs::path out = fs::path(opts.outDir) / "library.json", tmp = fs::path(opts.outDir) / ".library.json.tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << libraryJson(*spec, built, *shapeVars, sources);
    if (!f) {
      diags.report(DiagKind::CannotWriteOutput, SourceRange{}, tmp.string(), "write failed");
      return finish(ExitCode::Environment);
    }
  }
  fs::rename(tmp, out, ec);
  if (ec) {
    diags.report(DiagKind::CannotWriteOutput, SourceRange{}, out.string(), ec.message());
    return finish(ExitCode::Environment);
  }
  std::cerr << "cakec library: " << spec->name << ": " << built.size() << " variants, " << spec->entries.size()
            << " dispatch entries, table checked -> " << out.string() << "\n";
  return finish(ExitCode::Success);
}

}   // namespace

int runLibraryCommand(int argc, char **argv) {
  CLI::App app{"cakec library: build a kernel library (variants + dispatch table) from a JSON spec"};
  app.name("cakec library");
  app.require_subcommand(1);
  BuildOptions opts;
  CLI::App *build = app.add_subcommand("build", "compile every variant of SPEC and check its dispatch table");
  build->add_option("SPEC", opts.spec, "the library spec (JSON, docs/library.md)")->required();
  build->add_option("-o,--output", opts.outDir, "the library folder to write (created if needed)")->required();
  build->add_option("--ptxas", opts.ptxas, "the ptxas to run (default: as cakec finds it)");
  build->add_option(
      "--verify-timeout", opts.verifyTimeoutMs,
      "milliseconds per solver query, for the variants' verification and the table checks (default 10000; the "
      "spec's \"table_check_ms\" raises it for the table checks)");
  build->add_flag("--color", opts.color, "color the diagnostics");
  LibraryEstimateOptions estimateOpts;
  std::vector<std::string> shapeTexts;
  CLI::App *estimate = app.add_subcommand(
      "estimate", "price every variant of SPEC with the cost model at each --shape (each variant's whole kernel "
                  "sequence), ranked, with the dispatch table's choice");
  estimate->add_option("SPEC", estimateOpts.spec, "the library spec (JSON, docs/library.md)")->required();
  estimate->add_option("--shape", shapeTexts, "a shape of the library's variables, e.g. M=4096,N=4096,K=4096 "
                                              "(repeat for several)")->required();
  estimate->add_option("--machine", estimateOpts.machine, "machine description NAME (machines/*.json) or PATH "
                                                          "(default: each variant's arch's)");
  estimate->add_flag("--json", estimateOpts.json, "one JSON document (format cake-library-estimate) on stdout");
  estimate->add_flag("--color", estimateOpts.color, "color the diagnostics");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? 0 : static_cast<int>(ExitCode::Usage);
  }
  if (estimate->parsed()) {
    for (const std::string &t : shapeTexts) {
      std::optional<std::map<std::string, int64_t>> shape = parseShape(t);
      if (!shape) {
        std::cerr << "cakec library estimate: malformed --shape '" << t << "': expected NAME=INTEGER[,NAME=INTEGER...]\n";
        return static_cast<int>(ExitCode::Usage);
      }
      estimateOpts.shapes.push_back(*shape);
    }
    return static_cast<int>(runLibraryEstimate(estimateOpts));
  }
  return static_cast<int>(runLibraryBuild(opts));
}

}   // namespace cake
