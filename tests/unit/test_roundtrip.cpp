// Printer round trip over every .cake file in the repository (samples/ and tests/).
//
// For each file that parses without errors: parse -> print -> parse must give a structurally equal tree
// (ASTEquality), and printing is a fixed point: print(parse(print(x))) == print(x) byte for byte.  Files
// with parse errors (diagnostic tests of the lexer and parser) are skipped; files that only have sema
// errors still round-trip, since sema is not run.  The repository root comes from the CAKE_SOURCE_DIR
// compile definition set in tests/CMakeLists.txt, so new files are picked up at test time.
#include "frontend/ASTEquality.h"
#include "frontend/ASTPrinter.h"
#include "frontend/Parser.h"
#include "support/Diagnostics.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#ifndef CAKE_SOURCE_DIR
#error "tests/CMakeLists.txt must define CAKE_SOURCE_DIR (the repository root) for the round-trip test"
#endif

using namespace cake;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> cakeFilesUnder(const fs::path &root) {
  std::vector<fs::path> files;
  if (!fs::is_directory(root)) return files;
  for (const auto &entry : fs::recursive_directory_iterator(root))
    if (entry.is_regular_file() && entry.path().extension() == ".cake") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string rendered(const DiagnosticEngine &diags) {
  std::ostringstream os;
  diags.renderText(os);
  return os.str();
}

} // namespace

TEST_CASE("printer round trip over samples/ and tests/") {
  const fs::path root = CAKE_SOURCE_DIR;
  std::vector<fs::path> files = cakeFilesUnder(root / "samples");
  for (auto &f : cakeFilesUnder(root / "tests")) files.push_back(f);
  REQUIRE_MESSAGE(!files.empty(), "no .cake files found under ", root.string());

  size_t roundTripped = 0, skipped = 0;
  for (const fs::path &path : files) {
    INFO("file: ", path.string());
    SourceManager sm;
    DiagnosticEngine originalDiags(sm, 0);
    Ptr<Module> original = parseModule(sm, sm.addBuffer(path.string(), readFile(path)), originalDiags);
    if (originalDiags.hasErrors()) {
      ++skipped;
      continue;
    }
    std::string printed = printModule(*original);
    INFO("printed:\n", printed);

    DiagnosticEngine reparseDiags(sm, 0);
    Ptr<Module> reparsed = parseModule(sm, sm.addBuffer("printed.cake", printed), reparseDiags);
    INFO("diagnostics on the printed text:\n", rendered(reparseDiags));
    CHECK_FALSE(reparseDiags.hasErrors());
    if (reparseDiags.hasErrors()) continue;

    std::optional<std::string> diff = firstDifference(*original, *reparsed);
    INFO("first difference: ", diff.value_or("none"));
    CHECK_FALSE(diff.has_value());
    CHECK(printModule(*reparsed) == printed);
    ++roundTripped;
  }
  MESSAGE("round-tripped ", roundTripped, " files, skipped ", skipped, " with parse errors");
  CHECK(roundTripped > 0);
}
