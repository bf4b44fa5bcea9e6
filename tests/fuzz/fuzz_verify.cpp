// libFuzzer target for the verifier: every input that the front end accepts (lex + parse + inline + sema)
// goes through verifyModule, the step behind `cakec --verify-only`, with a short per-query solver timeout.
//
// What counts as a bug: a sanitizer report, a stack overflow, an uncaught exception (Z3's included: the
// verifier must turn solver trouble into "unproven"), a timeout of the whole input (-timeout in
// utils/fuzz.sh), and a result that is not one of proven / failed / unproven, i.e. a kernel reported as
// having failed or unproven obligations without any error diagnostic to say so.
#include "FuzzFrontEnd.h"
#include "support/LargeStack.h"

#include "verify/Verifier.h"

#include <cstdio>
#include <cstdlib>

static int testOneInput(const uint8_t *data, size_t size) {
  using namespace cake;
  std::unique_ptr<fuzz::Analysed> a = fuzz::analyse(data, size);
  if (!a->ok) return 0;
  VerifyOptions options;
  options.timeoutMs = 250;   // per Z3 query; a whole input still has -timeout=5 s
  size_t errorsBefore = a->diags->errorCount();
  VerifyResult result = verifyModule(*a->module, a->sema, options, *a->diags);
  // "Never silently passed": a refuted or unproven obligation is always reported.
  if (!result.allProven() && a->diags->errorCount() == errorsBefore) {
    std::fprintf(stderr, "verifier: %u failed, %u unproven obligations but no error diagnostic\n", result.failed,
                 result.unproven);
    std::abort();
  }
  return 0;
}

// On a stack as large as cakec's own (support/LargeStack.h): the deepest program the parser accepts must not
// overflow the fuzzer's thread either.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return cake::runOnLargeStack([&] { return testOneInput(data, size); });
}
