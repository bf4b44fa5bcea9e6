// Unit tests of the wgmma / proxy family (src/verify/WgmmaProxies.cpp) and the cp.async group family
// (src/verify/CpAsyncGroups.cpp), on variants of the samples.
#include "verify_local_helpers.h"

#include <fstream>
#include <sstream>

using namespace cake;
using namespace cake::verifytest;

namespace {
std::string sample(const char *name) {
  std::ifstream in(std::string(CAKE_SOURCE_DIR) + "/samples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
std::string replaced(std::string s, const std::string &from, const std::string &to) {
  auto pos = s.find(from);
  REQUIRE_MESSAGE(pos != std::string::npos, from);
  return s.replace(pos, from.size(), to);
}
bool hasLocalFamilyCode(const Verified &v) {
  for (const std::string &c : v.codes())
    if (c >= "E0640" && c <= "E0659") return true;
  return false;
}
} // namespace

TEST_CASE("hopper_gemm: no wgmma / proxy / resource findings on the correct sample") {
  auto v = verifySource(sample("hopper_gemm.cake"));
  CHECK_MESSAGE(!hasLocalFamilyCode(*v), v->messages());
}

TEST_CASE("wgmma without a fence after the accumulator's initialisation (E0643)") {
  auto v = verifySource(replaced(sample("hopper_gemm.cake"), "      wgmma.fence;\n", ""));
  const Diagnostic *d = v->first("E0643");
  REQUIRE_MESSAGE(d, v->messages());
  CHECK(d->message.find("'acc'") != std::string::npos);
}

TEST_CASE("accumulator stored before the covering wgmma.wait (E0644), with the needed wait in the hint") {
  auto v = verifySource(replaced(sample("hopper_gemm.cake"), "    wgmma.wait 0;\n", "    wgmma.wait 1;\n"));
  const Diagnostic *d = v->first("E0644");
  REQUIRE_MESSAGE(d, v->messages());
  CHECK(d->message.find("store of accumulator 'acc'") != std::string::npos);
  CHECK(d->hint.find("wgmma.wait 0") != std::string::npos);
}

TEST_CASE("wgmma issued by part of a warpgroup, or inside elect (E0645)") {
  auto part = verifySource(replaced(sample("hopper_gemm.cake"), "      wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;\n",
                                    "      if math.warp < 2 {\n        wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;\n      }\n"));
  CHECK_MESSAGE(part->has("E0645"), part->messages());
  auto elect = verifySource(replaced(sample("hopper_gemm.cake"), "      wgmma.fence;\n", "      elect {\n        wgmma.fence;\n      }\n"));
  CHECK(elect->has("E0645"));
}

TEST_CASE("generic-proxy writes read by TMA need fence.proxy_async (E0646); the fence fixes it") {
  std::string base = "target sm_90;\nkernel k<BM = 64, BN = 64>(Out: bf16[M, N] tma(box=[BM, BN], swizzle=128B) align(16))\n"
                     "  requires(M % BM == 0, N % BN == 0) grid(N / BN, M / BM) threads(128) {\n"
                     "  shared tile: bf16[BM, BN] swizzle(128B) align(1024);\n"
                     "  tile[i32(tid.x) / 2, 0] = bf16(0.0);\n  FENCE\n  syncthreads;\n"
                     "  if tid.x == 0 {\n    tma.store Out[i32(block.y) * BM, i32(block.x) * BN] <- tile;\n"
                     "    tma.store.commit;\n    tma.store.wait 0;\n  }\n}\n";
  auto bad = verifySource(replaced(base, "FENCE", ""));
  CHECK_MESSAGE(bad->has("E0646"), bad->messages());
  auto good = verifySource(replaced(base, "FENCE", "fence.proxy_async;"));
  CHECK_MESSAGE(!good->has("E0646"), good->messages());
}

TEST_CASE("cp.async: a too weak wait, a missing wait and a wait moved after the barrier are E0647") {
  std::string a = sample("ampere_gemm.cake");
  auto clean = verifySource(a);
  CHECK_MESSAGE(!hasLocalFamilyCode(*clean), clean->messages());
  auto weak = verifySource(replaced(a, "cp.async.wait S - 2;", "cp.async.wait S - 1;"));
  const Diagnostic *d = weak->first("E0647");
  REQUIRE_MESSAGE(d, weak->messages());
  CHECK(d->notes.size() >= 3);
  auto moved = verifySource(replaced(a, "    cp.async.wait S - 2;     // tile kt is in shared memory (this thread's part)\n"
                                        "    syncthreads;",
                                     "    syncthreads;\n    cp.async.wait S - 2;"));
  const Diagnostic *m = moved->first("E0647");
  REQUIRE_MESSAGE(m, moved->messages());
  CHECK(m->message.find("of another thread") != std::string::npos);
  // A stronger wait is still correct.
  auto strong = verifySource(replaced(a, "cp.async.wait S - 2;", "cp.async.wait 0;"));
  CHECK_MESSAGE(!strong->has("E0647"), strong->messages());
}
