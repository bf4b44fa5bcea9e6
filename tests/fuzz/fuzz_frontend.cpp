// libFuzzer target for the whole front end: lex + parse + sema on arbitrary bytes, then, when the input
// parsed without errors, the printer round trip: print the (sema-annotated) tree, reparse the printed
// text, and require that it parses cleanly, is structurally equal (ASTEquality) and prints identically.
//
// Anything the front end does wrong on user input shows up as a crash here: a sanitizer report (ASan,
// UBSan), a stack overflow, a timeout (-timeout=5 in utils/fuzz.sh), an uncaught InternalError (a broken
// invariant, CAKE_ASSERT), or abort() from a failed round trip.  Build and run with utils/fuzz.sh.
#include "support/LargeStack.h"
#include "frontend/ASTEquality.h"
#include "frontend/ASTPrinter.h"
#include "frontend/Inline.h"
#include "frontend/Lexer.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "support/Diagnostics.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void roundTripFailure(const char *what, const std::string &printed, const std::string &detail) {
  std::fprintf(stderr, "round-trip failure: %s\n%s\n--- printed text ---\n%s\n", what, detail.c_str(),
               printed.c_str());
  std::abort();
}

} // namespace

static int testOneInput(const uint8_t *data, size_t size) {
  using namespace cake;
  std::string source(reinterpret_cast<const char *>(data), size);

  SourceManager sm;
  uint32_t file = sm.addBuffer("fuzz.cake", source);

  // The lexer on its own (parseModule lexes again internally; this keeps the lexer in the loop even when
  // the parser gives up early).
  {
    DiagnosticEngine lexDiags(sm, 0);
    std::vector<Token> tokens = lex(sm, file, lexDiags);
    if (tokens.empty() || tokens.back().kind != TokenKind::Eof) std::abort();
  }

  DiagnosticEngine diags(sm);
  Ptr<Module> module = parseModule(sm, file, diags);
  if (!module) std::abort();   // parseModule promises a module even on errors
  bool parsedClean = !diags.hasErrors();
  // The round trip below is about the module as written; inlining rewrites `module`, so keep a copy.
  DiagnosticEngine pristineDiags(sm);
  Ptr<Module> pristine = parseModule(sm, file, pristineDiags);
  std::string printed = printModule(*pristine);

  // Inlining and sema run on partial trees too: they must cope with whatever the parser recovered.
  inlineFunctions(*module, sm, diags);
  SemaResult sema = analyzeModule(*module, SemaOptions{}, diags);
  (void)sema;

  // Rendering exercises the line/column mapping and the caret printer on arbitrary ranges.
  std::string rendered;
  {
    std::ostringstream os;
    diags.renderText(os);
    diags.renderJson(os);
    rendered = os.str();
  }

  if (!parsedClean) return 0;

  DiagnosticEngine reparseDiags(sm);
  Ptr<Module> reparsed = parseModule(sm, sm.addBuffer("printed.cake", printed), reparseDiags);
  if (reparseDiags.hasErrors()) {
    std::ostringstream os;
    reparseDiags.renderText(os);
    roundTripFailure("the printed text does not parse", printed, os.str());
  }
  if (std::optional<std::string> diff = firstDifference(*pristine, *reparsed))
    roundTripFailure("reparsed tree differs", printed, *diff);
  std::string reprinted = printModule(*reparsed);
  if (reprinted != printed) roundTripFailure("printing is not a fixed point", printed, reprinted);
  return 0;
}

// On a stack as large as cakec's own (support/LargeStack.h): the deepest program the parser accepts must not
// overflow the fuzzer's thread either.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return cake::runOnLargeStack([&] { return testOneInput(data, size); });
}
