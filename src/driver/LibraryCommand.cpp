// cakec library build (see LibraryCommand.h): the library pipeline as one function, runLibraryBuild.
#include "driver/LibraryCommand.h"

#include "Manifest.h"
#include "driver/Driver.h"
#include "library/LibrarySpec.h"
#include "library/TableCheck.h"
#include "support/ReadFile.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace cake {

namespace {

namespace fs = std::filesystem;
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
    v["manifest"] = variants[i].manifestFile;
    v["kernel"] = variants[i].manifest.kernels[variants[i].kernel].name;
    if (!vs.then.empty()) v["then"] = vs.then;
    if (!vs.workspace.empty()) v["workspace"] = vs.workspace;
    v["arch"] = variants[i].manifest.arch;
    v["source"] = vs.source;
    nlohmann::ordered_json defines = nlohmann::ordered_json::object();
    for (const auto &[name, value] : vs.defines) defines[name] = value;
    for (const auto &[name, value] : vs.typeDefines) defines[name] = value;
    v["defines"] = defines;
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

  // 1. Compile every variant with the ordinary pipeline.
  const fs::path specDir = fs::path(opts.spec).parent_path();
  std::vector<BuiltVariant> built;
  for (const library::VariantSpec &v : spec->variants) {
    DriverOptions d;
    fs::path source = v.source;
    d.inputPath = (source.is_absolute() ? source : specDir / source).lexically_normal().string();
    d.outputPath = (fs::path(opts.outDir) / (v.name + ".cubin")).string();
    d.emit = EmitKind::Cubin;
    if (!v.arch.empty()) d.arch = parseArch(v.arch);
    d.defines = v.defines;
    d.typeDefines = v.typeDefines;
    d.kernels = v.compile;
    d.ptxasPath = opts.ptxas;
    d.verifyTimeoutMs = opts.verifyTimeoutMs;
    d.color = opts.color;
    for (const std::string &o : v.options) {
      if (o == "--no-verify")
        d.noVerify = true;
      else
        diags.report(DiagKind::LibrarySpecMalformed, v.range,
                     "option '" + o + "' of variant '" + v.name + "' is not one a library variant takes (--no-verify)");
    }
    if (!v.arch.empty() && !d.arch)
      diags.report(DiagKind::LibrarySpecMalformed, v.range,
                   "unknown arch '" + v.arch + "' of variant '" + v.name + "'");
    if (diags.hasErrors()) return finish(ExitCode::InputErrors);
    std::cerr << "cakec library: variant " << v.name << ": " << d.inputPath << "\n";
    ExitCode code = runDriver(d, std::cout, std::cerr);
    if (code == ExitCode::Internal || code == ExitCode::Environment) return finish(code);
    if (code != ExitCode::Success) {
      diags.report(DiagKind::LibraryVariantFailed, v.range, v.name, d.inputPath);
      continue;
    }
    BuiltVariant b;
    b.manifestFile = v.name + ".cubin.json";
    ReadFileResult manifest = readFileBounded(d.outputPath + ".json", kMaxSpecBytes);
    if (!manifest.ok())
      throw InternalError("cakec library: the manifest " + d.outputPath + ".json just written cannot be read");
    try {
      b.manifest = rt::parseManifest(manifest.text);
    } catch (const rt::ManifestError &e) {
      throw InternalError("cakec library: the runtime refuses the manifest cakec wrote for " + v.name + ": " +
                          e.what());
    }
    const auto &kernels = b.manifest.kernels;
    if (v.kernel.empty() && kernels.size() != 1) {
      std::string names;
      for (const auto &k : kernels) names += (names.empty() ? "" : ", ") + k.name;
      diags.report(DiagKind::LibraryUnknownKernel, v.range, v.name,
                   "its source has " + std::to_string(kernels.size()) + " kernels (" + names +
                       "); name one with \"kernel\"");
      continue;
    }
    bool found = v.kernel.empty();
    for (size_t k = 0; k < kernels.size(); ++k)
      if (kernels[k].name == v.kernel) {
        b.kernel = k;
        found = true;
      }
    if (!found) {
      diags.report(DiagKind::LibraryUnknownKernel, v.range, v.name, "its source has no kernel '" + v.kernel + "'");
      continue;
    }
    for (const std::string &name : v.then) {
      auto k = std::find_if(kernels.begin(), kernels.end(), [&](const rt::KernelSpec &x) { return x.name == name; });
      if (k == kernels.end())
        diags.report(DiagKind::LibraryUnknownKernel, v.range, v.name, "its source has no kernel '" + name + "' (\"then\")");
      else
        b.then.push_back(static_cast<size_t>(k - kernels.begin()));
    }
    b.workspace = v.workspace;
    built.push_back(std::move(b));
  }
  if (diags.hasErrors()) return finish(ExitCode::InputErrors);

  // 2. Signatures, shape variables, then the dispatch table.
  auto shapeVars = library::resolveShapeVars(*spec, built, diags);
  if (!shapeVars) return finish(ExitCode::InputErrors);
  library::checkDispatchTable(*spec, built, *shapeVars, sources, diags, opts.verifyTimeoutMs);
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
      "milliseconds per solver query, for the variants' verification and the table checks (default 10000)");
  build->add_flag("--color", opts.color, "color the diagnostics");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? 0 : static_cast<int>(ExitCode::Usage);
  }
  return static_cast<int>(runLibraryBuild(opts));
}

}   // namespace cake
