// Unit tests of the shared-memory race family (src/verify/SharedRaces.cpp) and the mbarrier initialisation
// order family (src/verify/MBarrierInitOrder.cpp).
#include "verify_local_helpers.h"

using namespace cake;
using namespace cake::verifytest;

namespace {
// A 256-thread sm_80 kernel with one shared array `s: f32[256]` and the given body.
std::string simt(const std::string &body, const std::string &extraShared = "") {
  return "target sm_80;\nkernel k(X: f32[N], Y: f32[N]) requires(N % 256 == 0) grid(1) threads(256) {\n"
         "  shared s: f32[256];\n" + extraShared + "  let t = i32(tid.x);\n" + body + "\n}\n";
}
std::string hopperInit(const std::string &init, const std::string &after = "") {
  return "target sm_90;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(128) {\n"
         "  mbarrier bar arrivals(128);\n" + init + "\n  syncthreads;\n" + after +
         "\n  arrive bar;\n  wait bar parity(0);\n}\n";
}
} // namespace

TEST_CASE("races: each thread touching its own element needs no barrier") {
  auto v = verifySource(simt("  s[t] = X[t];\n  Y[t] = s[t];"));
  CHECK_MESSAGE(v->codes().empty(), v->messages());
  CHECK(v->result.proven >= 2);
}

TEST_CASE("races: reading a neighbour's element without a barrier is E0655 with both threads") {
  auto v = verifySource(simt("  s[t] = X[t];\n  Y[t] = s[(t + 1) % 256];"));
  const Diagnostic *d = v->first("E0655");
  REQUIRE_MESSAGE(d, v->messages());
  CHECK(d->message.find("read 's[(t + 1) % 256]' races with the write 's[t]'") != std::string::npos);
  bool counterexample = false;
  for (auto &n : d->notes) counterexample |= n.message.find("counterexample: thread") != std::string::npos;
  CHECK(counterexample);
}

TEST_CASE("races: a syncthreads between write and read separates the intervals") {
  auto v = verifySource(simt("  s[t] = X[t];\n  syncthreads;\n  Y[t] = s[(t + 1) % 256];"));
  CHECK_MESSAGE(v->codes().empty(), v->messages());
}

TEST_CASE("races: the loop wrap-around is one interval (write-after-read across iterations)") {
  auto bad = verifySource(simt("  for kt in 0..N / 256 {\n    s[t] = X[kt * 256 + t];\n    syncthreads;\n"
                               "    Y[kt * 256 + t] = s[255 - t];\n  }"));
  const Diagnostic *d = bad->first("E0655");
  REQUIRE_MESSAGE(d, bad->messages());
  bool across = false;
  for (auto &n : d->notes) across |= n.message.find("between one iteration of loop 'kt' and the next") != std::string::npos;
  CHECK(across);
  auto good = verifySource(simt("  for kt in 0..N / 256 {\n    s[t] = X[kt * 256 + t];\n    syncthreads;\n"
                                "    Y[kt * 256 + t] = s[255 - t];\n    syncthreads;\n  }"));
  CHECK_MESSAGE(good->codes().empty(), good->messages());
}

TEST_CASE("races: a ring indexed by the loop variable is race-free when stages differ") {
  // Iteration kt writes stage (kt + 1) % 2 and reads stage kt % 2, one barrier per iteration.
  auto v = verifySource(simt("  for kt in 0..N / 256 {\n    r[(kt + 1) % 2, t] = X[kt * 256 + t];\n"
                             "    Y[kt * 256 + t] = r[kt % 2, 255 - t];\n    syncthreads;\n  }",
                             "  shared r: f32[2, 256];\n"));
  CHECK_MESSAGE(v->codes().empty(), v->messages());
  auto bad = verifySource(simt("  for kt in 0..N / 256 {\n    r[kt % 2, t] = X[kt * 256 + t];\n"
                               "    Y[kt * 256 + t] = r[kt % 2, 255 - t];\n    syncthreads;\n  }",
                               "  shared r: f32[2, 256];\n"));
  CHECK_MESSAGE(bad->has("E0655"), bad->messages());
}

TEST_CASE("races: an index through a mutable variable is unproven, not passed") {
  auto v = verifySource(simt("  var i: i32 = t;\n  s[i] = X[t];\n  Y[t] = s[t];"));
  CHECK_MESSAGE(v->has("E0601"), v->messages());
  CHECK_FALSE(v->has("E0655"));
}

TEST_CASE("init order: one thread initialises, published by syncthreads: proven") {
  auto v = verifySource(hopperInit("  if tid.x == 0 {\n    mbarrier.init bar;\n  }"));
  CHECK_MESSAGE(v->codes().empty(), v->messages());
}

TEST_CASE("init order: an init run by every lane 0 is E0656") {
  auto v = verifySource(hopperInit("  if lane == 0 {\n    mbarrier.init bar;\n  }"));
  const Diagnostic *d = v->first("E0656");
  REQUIRE_MESSAGE(d, v->messages());
  CHECK(d->message.find("initialised by more than one thread") != std::string::npos);
}

TEST_CASE("init order: a second init after the publishing barrier is E0657; back-to-back inits are not") {
  auto bad = verifySource(hopperInit("  if tid.x == 0 {\n    mbarrier.init bar;\n  }",
                                     "  if tid.x == 0 {\n    mbarrier.init bar;\n  }"));
  CHECK_MESSAGE(bad->has("E0657"), bad->messages());
  auto twice = verifySource(hopperInit("  if tid.x == 0 {\n    mbarrier.init bar;\n    mbarrier.init bar;\n  }"));
  CHECK_MESSAGE(!twice->has("E0657"), twice->messages());
}

// ---- async-proxy races (src/verify/AsyncProxyRaces.cpp, E0658)
namespace {
// Two warpgroups: role `w` writes the staging tile `st` (generic stores, fence.proxy_async), role `s`'s
// thread 0 stores it with TMA.  `order` is the synchronisation between them (both roles run it).
std::string twoRoles(const std::string &writerSync, const std::string &storerSync,
                     const std::string &barriers = "  barrier both id(1) threads(256);\n  barrier mine id(2) threads(128);\n") {
  return "target sm_90;\nkernel k(Out: f32[M, 128] tma(box=[1, 128]) align(16)) requires(M >= 1) grid(M) threads(256) {\n"
         "  shared st: f32[1, 128] align(128);\n" + barriers +
         "  role w = warpgroup(0) {\n    st[0, i32(w.thread)] = 1.0;\n    fence.proxy_async;\n" + writerSync + "  }\n"
         "  role s = warpgroup(1) {\n" + storerSync +
         "    if s.thread == 0 {\n      tma.store Out[i32(block.x), 0] <- st;\n      tma.store.commit;\n"
         "      tma.store.wait 0;\n    }\n  }\n}\n";
}
} // namespace

TEST_CASE("async races: a named barrier over both roles orders the writes before the tma.store") {
  auto v = verifySource(twoRoles("    sync both;\n", "    sync both;\n"));
  CHECK_MESSAGE(v->codes().empty(), v->messages());
  CHECK(v->result.proven >= 1);
}

TEST_CASE("async races: a named barrier the writers do not take part in orders nothing (E0658)") {
  // `mine` is passed by the storing warpgroup only (128 threads): the writers are not ordered by it.
  auto v = verifySource(twoRoles("", "    sync mine;\n", "  barrier mine id(2) threads(128);\n"));
  const Diagnostic *d = v->first("E0658");
  REQUIRE_MESSAGE(d, v->messages());
  CHECK(d->message.find("'tma.store' reads shared 'st'") != std::string::npos);
  bool counterexample = false;
  for (auto &n : d->notes) counterexample |= n.message.find("counterexample: thread 128 (warp 4, lane 0)") != std::string::npos;
  CHECK_MESSAGE(counterexample, v->messages());
}

TEST_CASE("async races: a writer that only arrives releases, the storer that syncs acquires") {
  auto v = verifySource(twoRoles("    arrive both;\n", "    sync both;\n"));
  CHECK_MESSAGE(v->codes().empty(), v->messages());
  // The other way round: the storer only arrives, so it does not wait for the writers.
  auto bad = verifySource(twoRoles("    sync both;\n", "    arrive both;\n"));
  CHECK_MESSAGE(bad->first("E0658") != nullptr, bad->messages());
}
