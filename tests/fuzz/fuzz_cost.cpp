// libFuzzer target for the cost model: every input that the front end accepts goes through estimateModule,
// the step behind `cakec --estimate`, on the target's default machine description (machines/*.json, the
// H200 when the target has no default), at a shape drawn from the input's hash: each shape variable gets
// one of a few values from 1 to 2^31 - 1, so that small, odd, large and overflowing shapes all occur.
// The estimates are then rendered as text and as JSON.
//
// What counts as a bug: a sanitizer report (signed overflow in the counting included), an uncaught
// exception, a timeout, an estimate without an error diagnostic whose predicted time is negative, NaN or
// infinite, and estimates returned together with error diagnostics (estimateModule promises none then).
#include "FuzzFrontEnd.h"
#include "support/LargeStack.h"

#include "cost/CostModel.h"
#include "cost/Machine.h"
#include "cost/Report.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>

namespace {

const cake::cost::Machine *machineFor(cake::Arch arch) {
  static std::map<cake::Arch, std::optional<cake::cost::Machine>> cache;
  auto it = cache.find(arch);
  if (it == cache.end()) {
    cake::cost::MachineLoadResult loaded = cake::cost::findMachine("", arch);
    if (!loaded.machine) loaded = cake::cost::findMachine("h200", arch);
    it = cache.emplace(arch, loaded.machine).first;
  }
  return it->second ? &*it->second : nullptr;
}

} // namespace

static int testOneInput(const uint8_t *data, size_t size) {
  using namespace cake;
  std::unique_ptr<fuzz::Analysed> a = fuzz::analyse(data, size);
  if (!a->ok) return 0;
  const cost::Machine *machine = machineFor(a->sema.arch);
  if (!machine) {
    std::fprintf(stderr, "no machine description for %s (machines/ not found?)\n",
                 std::string(archName(a->sema.arch)).c_str());
    std::abort();
  }
  static const int64_t kValues[] = {1, 2, 3, 31, 64, 127, 128, 1000, 4096, 65536, 1 << 20, 2147483647};
  uint64_t h = fuzz::inputHash(data, size);
  cost::EstimateOptions options;
  for (const auto &k : a->module->kernels)
    for (const auto &var : k->shapeVars) {
      options.shape[var->name] = kValues[h % (sizeof kValues / sizeof kValues[0])];
      h = h * 6364136223846793005ull + 1442695040888963407ull;
      h ^= h >> 29;
    }
  std::vector<cost::Estimate> estimates = cost::estimateModule(*a->module, a->sema, *machine, options, *a->diags);
  if (!estimates.empty() && a->diags->hasErrors()) {
    std::fprintf(stderr, "estimateModule returned %zu estimates together with errors\n", estimates.size());
    std::abort();
  }
  for (const cost::Estimate &e : estimates)
    if (!std::isfinite(e.seconds) || e.seconds < 0) {
      std::fprintf(stderr, "kernel %s: predicted time %g s\n", e.kernel.c_str(), e.seconds);
      std::abort();
    }
  std::ostringstream os;
  cost::renderEstimateText(estimates, options.shape, os);
  cost::renderEstimateJson(estimates, options.shape, os);
  return 0;
}

// On a stack as large as cakec's own (support/LargeStack.h): the deepest program the parser accepts must not
// overflow the fuzzer's thread either.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return cake::runOnLargeStack([&] { return testOneInput(data, size); });
}
