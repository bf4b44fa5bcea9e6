// Verifier sessions (verify/Verifier.h): modules verified one after another in one session (a sweep's worker
// thread) get the verdicts they get alone, and a trivial module costs far less than making a Z3 context.
#include "verify_local_helpers.h"

#include <chrono>
#include <string>

using namespace cake;
using namespace cake::verifytest;

namespace {

// A trivial kernel; `guard` false drops its bounds check (then it fails: the index can pass N).
std::string trivialKernel(int block, bool guard) {
  std::string b = std::to_string(block);
  return "target sm_80;\n"
         "kernel k(A: f32[N]) requires(N >= 1, N <= 100000000) grid(cdiv(N, " + b + ")) threads(" + b + ") {\n"
         "  let i = i32(block.x) * " + b + " + i32(tid.x);\n" +
         (guard ? "  if i < N {\n    A[i] = A[i] + 1.0;\n  }\n" : "  A[i] = A[i] + 1.0;\n") + "}\n";
}

} // namespace

TEST_CASE("verifier session: modules verified in one session get the verdicts they get alone") {
  VerifySessionPtr session = makeVerifySession();
  for (int round = 0; round < 2; ++round)
    for (int block : {32, 64, 128})
      for (bool guard : {true, false}) {
        CAPTURE(block);
        CAPTURE(guard);
        auto alone = verifySource(trivialKernel(block, guard));
        auto shared = verifySource(trivialKernel(block, guard), session.get());
        CHECK(shared->codes() == alone->codes());
        CHECK(shared->result.proven == alone->result.proven);
        CHECK(shared->result.failed == alone->result.failed);
        CHECK(shared->result.unproven == alone->result.unproven);
        CHECK(shared->result.allProven() == guard);
      }
}

TEST_CASE("verifier session: a trivial module in a reused session costs less than a session of its own") {
  // Each session of its own makes and deletes a Z3 context (~14 ms on the development machine); a reused one
  // pays that once.  Compared, not timed against a constant, so that a loaded or instrumented build passes.
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); };
  constexpr int kModules = 40;
  VerifySessionPtr session = makeVerifySession();
  auto start = Clock::now();
  for (int i = 0; i < kModules; ++i) CHECK(verifySource(trivialKernel(32 * (1 + i % 16), true), session.get())->result.allProven());
  double reused = seconds(start);
  start = Clock::now();
  for (int i = 0; i < kModules; ++i) CHECK(verifySource(trivialKernel(32 * (1 + i % 16), true))->result.allProven());
  double own = seconds(start);
  MESSAGE("40 trivial modules: " << reused * 1e3 << " ms in one session, " << own * 1e3 << " ms with a session each");
  CHECK(reused < own);
}
