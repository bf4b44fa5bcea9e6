// Unit tests of the resources family (src/verify/Resources.cpp) and the SIMT bounds family
// (src/verify/SimtBounds.cpp).
#include "verify_local_helpers.h"

using namespace cake;
using namespace cake::verifytest;

namespace {
std::string simt(const std::string &body, const std::string &requires_ = "N >= 1") {
  return "target sm_80;\nkernel k<T = 256>(A: f32[N], B: f32[N]) requires(" + requires_ +
         ") grid(cdiv(N, T)) threads(T) {\n  let i = i32(block.x) * T + i32(tid.x);\n" + body + "\n}\n";
}
} // namespace

TEST_CASE("bounds: a guarded access is proven, a missing tail guard is refuted with a counterexample") {
  auto ok = verifySource(simt("  if i < N { B[i] = A[i]; }"));
  CHECK_MESSAGE(ok->codes().empty(), ok->messages());
  CHECK(ok->result.proven >= 2);
  auto bad = verifySource(simt("  B[i] = A[i];"));
  const Diagnostic *d = bad->first("E0652");
  REQUIRE_MESSAGE(d, bad->messages());
  REQUIRE(!d->notes.empty());
  CHECK(d->notes[0].message.find("counterexample:") != std::string::npos);
  CHECK(d->notes[0].message.find("is past N = ") != std::string::npos);
}

TEST_CASE("bounds: off-by-one guard, negative index, vector slice length, requires facts") {
  CHECK(verifySource(simt("  if i <= N { B[i] = 0.0; }"))->has("E0652"));
  CHECK(verifySource(simt("  if i < N { B[i] = A[i - 1]; }"))->has("E0652"));
  CHECK(verifySource(simt("  if i * 4 < N { let v = A[i * 4 +: 4]; B[i] = v[0]; }"))->has("E0652"));
  // The vector slice needs N % 4 == 0 for its length, A aligned to 16 bytes (E0671), and 'i * 4' must not wrap
  // in i32 (E0670): i < N + 256, so N <= 2^29 - 512 keeps i * 4 below 2^31.
  auto fixed = verifySource("target sm_80;\nkernel k<T = 256>(A: f32[N] align(16), B: f32[N])\n"
                            "  requires(N >= 1, N % 4 == 0, N <= 536870400) grid(cdiv(N, T)) threads(T) {\n"
                            "  let i = i32(block.x) * T + i32(tid.x);\n"
                            "  if i * 4 < N { let v = A[i * 4 +: 4]; B[i] = v[0]; }\n}\n");
  CHECK_MESSAGE(fixed->codes().empty(), fixed->messages());
  auto wraps = verifySource(simt("  if i * 4 < N { let v = A[i * 4 +: 4]; B[i] = v[0]; }", "N >= 1, N % 4 == 0"));
  CHECK(wraps->has("E0670"));
  CHECK(wraps->has("E0671"));
  // An early return narrows the rest of the block.
  auto early = verifySource(simt("  if i >= N { return; }\n  B[i] = A[i];"));
  CHECK_MESSAGE(!early->has("E0652"), early->messages());
}

TEST_CASE("bounds: an index through a mutable var is reported unproven, not passed") {
  auto v = verifySource(simt("  var j: i32 = i;\n  j += 1;\n  if i < N { B[j] = 0.0; }"));
  CHECK_MESSAGE(v->has("E0601"), v->messages());
}

TEST_CASE("resources: register demand over the role budget and over the launch limit (E0648)") {
  auto role = verifySource("target sm_90a;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {\n"
                           "  role l = warpgroup(0) regs(40) { }\n  role m = warpgroup(1) regs(200) {\n"
                           "    var acc: frag<wgmma_acc, f32, 64, 256, 16> = 0.0;\n"
                           "    var acc2: frag<wgmma_acc, f32, 64, 256, 16> = 0.0;\n    X[0] = acc[0] + acc2[0];\n  }\n}\n");
  const Diagnostic *d = role->first("E0648");
  REQUIRE_MESSAGE(d, role->messages());
  CHECK(d->message.find("256 registers") != std::string::npos);
  auto launch = verifySource("target sm_80;\nkernel k(X: f32[N]) requires(N >= 1024) grid(1) threads(1024) {\n"
                             "  var a: f32[80];\n  for i in 0..80 unroll { a[i] = 0.0; }\n  X[i32(tid.x)] = a[0];\n}\n");
  CHECK_MESSAGE(launch->has("E0648"), launch->messages());
}

TEST_CASE("resources: setmaxnreg budgets plus the unbudgeted warps' floor overflow the register file (E0649)") {
  auto v = verifySource("target sm_90a;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(384) {\n"
                        "  role m[2] = warpgroups(1..3) regs(248) { }\n}\n");
  CHECK_MESSAGE(v->has("E0649"), v->messages());
  auto ok = verifySource("target sm_90a;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(384) {\n"
                         "  role m[2] = warpgroups(1..3) regs(232) { }\n}\n");
  CHECK_FALSE(ok->has("E0649"));
}

TEST_CASE("resources: TMA tensor alignment and row pitch (E0650), shared tile alignment (E0651)") {
  std::string k = "target sm_90;\nkernel k<BM = 64, BN = 64>(Out: bf16[M, N] tma(box=[BM, BN]) ALIGN)\n"
                  "  requires(M % BM == 0 REQ) grid(cdiv(N, BN), M / BM) threads(128) {\n  PAD\n"
                  "  shared tile: bf16[2][BM, BN] align(128);\n  if tid.x == 0 {\n"
                  "    tma.store Out[i32(block.y) * BM, i32(block.x) * BN] <- tile[1];\n    tma.store.commit;\n"
                  "    tma.store.wait 0;\n  }\n}\n";
  auto sub = [](std::string s, const std::string &a, const std::string &b) {
    for (size_t p; (p = s.find(a)) != std::string::npos;) s.replace(p, a.size(), b);
    return s;
  };
  auto good = verifySource(sub(sub(sub(k, "ALIGN", "align(16)"), " REQ", ", N % 8 == 0"), "PAD", ""));
  CHECK_MESSAGE(good->codes().empty(), good->messages());
  auto noAlign = verifySource(sub(sub(sub(k, "ALIGN", ""), " REQ", ", N % 8 == 0"), "PAD", ""));
  CHECK(noAlign->has("E0650"));
  auto pitch = verifySource(sub(sub(sub(k, "ALIGN", "align(16)"), " REQ", ""), "PAD", ""));
  const Diagnostic *d = pitch->first("E0650");
  REQUIRE_MESSAGE(d, pitch->messages());
  CHECK(d->hint.find("N % 8 == 0") != std::string::npos);
  auto misaligned = verifySource(sub(sub(sub(sub(k, "ALIGN", "align(16)"), " REQ", ", N % 8 == 0"), "PAD",
                                         "shared flags: i32[4];"), "align(128);", ";"));
  CHECK_MESSAGE(misaligned->has("E0651"), misaligned->messages());
}
