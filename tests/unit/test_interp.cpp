// Unit tests of the interpreter (src/interp): bit-exact numerics, the SIMT samples at small and ragged
// shapes against references computed here, schedules (seeds), and the located run-time diagnostics
// (out of bounds, partial collectives, deadlock, unsupported constructs, bad arguments).
#include "frontend/Inline.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "interp/Interpreter.h"
#include "interp/Npy.h"
#include "interp/Numerics.h"
#include "interp/WarpExecutor.h"
#include "support/Diagnostics.h"
#include "support/ReadFile.h"
#include "InterpTest.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace cake;
using namespace cake::interp;
using namespace cake::interp::test;


TEST_CASE("interp numerics: bf16 / f16 round to nearest even, saturating float -> int") {
  CHECK(floatToBf16Bits(1.0f) == 0x3f80);
  CHECK(floatToBf16Bits(1.00390625f) == 0x3f80);          // halfway, ties to even (down)
  CHECK(floatToBf16Bits(1.01171875f) == 0x3f82);          // halfway, ties to even (up)
  CHECK(floatToBf16Bits(std::nextafter(1.00390625f, 2.0f)) == 0x3f81);   // just above halfway
  CHECK(std::isinf(bf16BitsToFloat(floatToBf16Bits(3.4e38f))));
  CHECK(std::isnan(bf16BitsToFloat(floatToBf16Bits(NAN))));
  CHECK(f16BitsToFloat(floatToF16Bits(65504.0f)) == 65504.0f);
  CHECK(std::isinf(f16BitsToFloat(floatToF16Bits(65520.0f))));
  CHECK(f16BitsToFloat(floatToF16Bits(65519.0f)) == 65504.0f);
  CHECK(floatToF16Bits(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
  CHECK(floatToF16Bits(std::ldexp(1.0f, -25)) == 0x0000);  // half of it: ties to even (0)
  CHECK(floatToF16Bits(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(floatToF16Bits(-2.0f) == 0xc000);
  CHECK(f16BitsToFloat(floatToF16Bits(0.1f)) == doctest::Approx(0.0999755859375));
  Scalar big;
  big.f = 3e9;
  CHECK(convertScalar(big, ScalarKind::F32, ScalarKind::I32).i == 2147483647);
  big.f = -2.7;
  CHECK(convertScalar(big, ScalarKind::F32, ScalarKind::I32).i == -2);
  CHECK(convertScalar(big, ScalarKind::F32, ScalarKind::U32).i == 0);
  Scalar neg;
  neg.i = -1;
  CHECK(convertScalar(neg, ScalarKind::I32, ScalarKind::U32).i == 4294967295);
}

TEST_CASE("interp vector_add: bit-exact bf16 sums at ragged N, one and several blocks") {
  auto p = sample("vector_add.cake");
  for (int64_t n : {1, 7, 8, 1000, 2053}) {
    INFO("N = " << n);
    RunRequest req;
    std::vector<double> a = randoms(size_t(n), 1), b = randoms(size_t(n), 2);
    req.tensors["A"] = HostTensor::fromDoubles(ScalarKind::BF16, {n}, a);
    req.tensors["B"] = HostTensor::fromDoubles(ScalarKind::BF16, {n}, b);
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    const HostTensor &c = r.tensors.at("C");
    REQUIRE(c.elements() == n);
    int wrong = 0;
    for (int64_t i = 0; i < n; ++i)
      if (c.at(i) != bf16(float(bf16(a[size_t(i)])) + float(bf16(b[size_t(i)])))) ++wrong;
    CHECK(wrong == 0);
  }
}

TEST_CASE("interp block_reduce_sum: per-block sums over shared memory, syncthreads and shuffles") {
  for (auto [threads, items] : {std::pair<int64_t, int64_t>{256, 4}, {64, 1}}) {
    auto p = sample("block_reduce_sum.cake", {{"THREADS", threads}, {"ITEMS", items}});
    int64_t chunk = threads * items * 4;
    for (int64_t n : {int64_t(1), int64_t(13), chunk, 2 * chunk + 5}) {
      INFO("THREADS = " << threads << ", N = " << n);
      int64_t g = (n + chunk - 1) / chunk;
      RunRequest req;
      std::vector<double> x = randoms(size_t(n), 3);
      req.tensors["X"] = HostTensor::fromDoubles(ScalarKind::F32, {n}, x);
      req.shape["G"] = g;
      for (uint64_t seed : {0, 7}) {
        req.seed = seed;
        RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
        REQUIRE_MESSAGE(r.ok, p->messages());
        const HostTensor &part = r.tensors.at("Partial");
        for (int64_t b = 0; b < g; ++b) {
          double want = 0;
          for (int64_t i = b * chunk; i < std::min(n, (b + 1) * chunk); ++i) want += float(x[size_t(i)]);
          CHECK(part.at(b) == doctest::Approx(want).epsilon(1e-5));
        }
      }
    }
  }
}

TEST_CASE("interp row_softmax: bf16 and f16 rows, one warp per row and two (shared + syncthreads)") {
  auto p = sample("row_softmax.cake");
  for (const char *kernel : {"row_softmax", "row_softmax_f16"}) {
    ScalarKind t = std::string(kernel) == "row_softmax" ? ScalarKind::BF16 : ScalarKind::F16;
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{5, 40}, {9, 1040}}) {
      INFO(kernel << " R = " << rows << ", C = " << cols);
      std::vector<double> x = randoms(size_t(rows * cols), 4, -4, 4);
      RunRequest req;
      req.tensors["X"] = HostTensor::fromDoubles(t, {rows, cols}, x);
      RunResult r = runKernel(p->kernel(kernel), p->sema, req, p->diags);
      REQUIRE_MESSAGE(r.ok, p->messages());
      const HostTensor &xin = req.tensors["X"], &y = r.tensors.at("Y");
      int bad = 0;
      for (int64_t i = 0; i < rows; ++i) {
        double m = -INFINITY, s = 0;
        for (int64_t j = 0; j < cols; ++j) m = std::max(m, xin.at(i * cols + j));
        for (int64_t j = 0; j < cols; ++j) s += std::exp(xin.at(i * cols + j) - m);
        for (int64_t j = 0; j < cols; ++j) {
          double want = std::exp(xin.at(i * cols + j) - m) / s, got = y.at(i * cols + j);
          if (std::fabs(got - want) > 1e-2 * want + 1e-6) ++bad;
        }
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("interp simt_gemm: f32 GEMM with ragged edge tiles, default and small tiles") {
  struct Case { std::map<std::string, int64_t> defines; int64_t m, n, k; };
  for (const Case &c : {Case{{}, 37, 44, 20}, Case{{{"BM", 64}, {"BN", 64}, {"BK", 8}}, 70, 132, 28}}) {
    auto p = sample("simt_gemm.cake", c.defines);
    INFO("M = " << c.m << ", N = " << c.n << ", K = " << c.k);
    std::vector<double> a = randoms(size_t(c.m * c.k), 5), b = randoms(size_t(c.k * c.n), 6);
    RunRequest req;
    req.tensors["A"] = HostTensor::fromDoubles(ScalarKind::F32, {c.m, c.k}, a);
    req.tensors["B"] = HostTensor::fromDoubles(ScalarKind::F32, {c.k, c.n}, b);
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    const HostTensor &out = r.tensors.at("C");
    int bad = 0;
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double want = 0;
        for (int64_t kk = 0; kk < c.k; ++kk) want += double(float(a[size_t(i * c.k + kk)])) * double(float(b[size_t(kk * c.n + j)]));
        if (std::fabs(out.at(i * c.n + j) - want) > 1e-4 * (1 + std::fabs(want))) ++bad;
      }
    CHECK(bad == 0);
  }
}

TEST_CASE("interp: an out-of-bounds store is E0901 naming the thread; nothing crashes") {
  auto p = compile("target sm_80;\nkernel k(X: f32[N]) grid(1) threads(64) {\n  X[i32(tid.x)] = 1.0;\n}\n");
  RunRequest req;
  req.shape["N"] = 40;
  RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
  CHECK_FALSE(r.ok);
  REQUIRE(p->has("E0901"));
  CHECK(p->messages().find("thread 40 (warp 1, lane 8): index 40 of dimension 0 is outside [0, 40)") != std::string::npos);
  // The guarded form runs.
  auto q = compile("target sm_80;\nkernel k(X: f32[N]) grid(1) threads(64) {\n  if i32(tid.x) < N && X[i32(tid.x)] == 0.0 { X[i32(tid.x)] = 1.0; }\n}\n");
  RunResult ok = runKernel(q->kernel(), q->sema, req, q->diags);
  REQUIRE_MESSAGE(ok.ok, q->messages());
  CHECK(ok.tensors.at("X").at(39) == 1.0);
}

TEST_CASE("interp: collectives under divergence, deadlock, integer division by zero") {
  RunRequest req;
  req.shape["N"] = 64;
  auto partial = compile("target sm_80;\nkernel k(X: f32[N]) grid(1) threads(32) {\n  if lane < 16 {\n    X[lane] = warp.sum(1.0);\n  }\n}\n");
  CHECK_FALSE(runKernel(partial->kernel(), partial->sema, req, partial->diags).ok);
  CHECK(partial->has("E0904"));

  // Warp 0 waits at barrier 0 for warp 1, which waits at barrier 1 for warp 0.  (A warp that finishes
  // drops out of barrier 0, so unequal syncthreads counts alone do not deadlock.)
  auto deadlock = compile("target sm_80;\nkernel k(X: f32[N]) grid(1) threads(64) {\n  barrier b id(1) threads(64);\n"
                          "  if warp == 0 {\n    syncthreads;\n  } else {\n    X[0] = 1.0;\n    sync b;\n  }\n}\n");
  CHECK_FALSE(runKernel(deadlock->kernel(), deadlock->sema, req, deadlock->diags).ok);
  REQUIRE(deadlock->has("E0902"));
  CHECK(deadlock->diags.diagnostics().back().notes.size() >= 1);

  auto div = compile("target sm_80;\nkernel k(X: i32[N]) grid(1) threads(32) {\n  X[lane] = 7 / (lane - 3);\n}\n");
  CHECK_FALSE(runKernel(div->kernel(), div->sema, req, div->diags).ok);
  CHECK(div->has("E0905"));
}

TEST_CASE("interp: named barriers order a producer warp and a consumer warp under every seed") {
  auto p = compile("target sm_80;\nkernel k(Y: f32[N]) grid(1) threads(64) {\n  shared buf: f32[32];\n"
                   "  barrier ready id(1) threads(64);\n"
                   "  role producer = warp(0) {\n    buf[lane] = f32(lane) * 2.0;\n    arrive ready;\n  }\n"
                   "  role consumer = warp(1) {\n    sync ready;\n    Y[lane] = buf[31 - lane];\n  }\n}\n");
  for (uint64_t seed : {0, 1, 2, 3, 4, 5}) {
    RunRequest req;
    req.shape["N"] = 32;
    req.seed = seed;
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    for (int i = 0; i < 32; ++i) CHECK(r.tensors.at("Y").at(i) == 2.0 * (31 - i));
  }
}

TEST_CASE("interp: atomics, shuffles, loops with lane-dependent bounds") {
  auto p = compile("target sm_80;\nkernel k(H: i32[B], Y: f32[N]) grid(2) threads(64) {\n"
                   "  let t = i32(block.x) * 64 + i32(tid.x);\n"
                   "  let old = atom.add(H[t % B], 1);\n"
                   "  var s: f32 = 0.0;\n  for j in 0..lane { s += 1.0; }\n"
                   "  Y[t] = shfl.xor(s, 1) + f32(shfl.idx(lane, 0));\n}\n");
  RunRequest req;
  req.shape["B"] = 5;
  req.shape["N"] = 128;
  req.seed = 3;   // no barrier: the warps run one after another, in a seeded order
  RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
  REQUIRE_MESSAGE(r.ok, p->messages());
  int64_t total = 0;
  for (int i = 0; i < 5; ++i) total += int64_t(r.tensors.at("H").at(i));
  CHECK(total == 128);
  CHECK(r.tensors.at("H").at(0) == 26);   // t % 5 == 0 for 26 of 0..127
  for (int t = 0; t < 128; ++t) CHECK(r.tensors.at("Y").at(t) == double((t % 32) ^ 1));
}

TEST_CASE("interp: bad arguments, failed requires and unsupported constructs are diagnostics") {
  auto p = sample("vector_add.cake");
  {
    RunRequest req;   // no tensor fixes N
    CHECK_FALSE(runKernel(p->kernel(), p->sema, req, p->diags).ok);
    CHECK(p->has("E0908"));
  }
  {
    RunRequest req;
    req.tensors["A"] = HostTensor::zeros(ScalarKind::BF16, {16});
    req.tensors["B"] = HostTensor::zeros(ScalarKind::BF16, {17});
    req.tensors["Q"] = HostTensor::zeros(ScalarKind::BF16, {16});
    CHECK_FALSE(runKernel(p->kernel(), p->sema, req, p->diags).ok);
    CHECK(p->has("E0907"));
  }
  {
    RunRequest req;
    req.shape["N"] = 0;   // requires(N >= 1)
    CHECK_FALSE(runKernel(p->kernel(), p->sema, req, p->diags).ok);
    CHECK(p->has("E0906"));
  }
  auto mb = compile("target sm_90a;\nkernel k(X: f32[N]) grid(2) threads(32) cluster(2) {\n  X[0] = 1.0;\n  cluster.arrive;\n  cluster.wait;\n}\n");
  RunRequest req;
  req.shape["N"] = 4;
  CHECK_FALSE(runKernel(mb->kernel(), mb->sema, req, mb->diags).ok);
  CHECK(mb->has("E0903"));
}

TEST_CASE("interp npy: write then read round-trips; values convert to the parameter's type; bad files are refused") {
  HostTensor t = HostTensor::fromDoubles(ScalarKind::BF16, {2, 3}, {1.0, -2.5, 3.0078125, 0.1, 65504, -0.0});
  std::string bytes = writeNpy(t);
  CHECK(bytes.compare(0, 6, "\x93NUMPY") == 0);
  CHECK(bytes.find("'descr': '<f4'") != std::string::npos);   // bf16 is written as float32
  CHECK(bytes.find("'shape': (2,3)") != std::string::npos);
  CHECK((bytes.size() - 6 * 4) % 64 == 0);                     // header padded to 64 bytes
  std::string why;
  auto back = readNpy(bytes, ScalarKind::BF16, why);
  REQUIRE_MESSAGE(back, why);
  CHECK(back->dims == std::vector<int64_t>{2, 3});
  CHECK(back->bytes == t.bytes);
  auto asInt = readNpy(bytes, ScalarKind::I32, why);
  REQUIRE(asInt);
  CHECK(asInt->at(1) == -2);   // truncated toward zero
  CHECK_FALSE(readNpy("not an npy file", ScalarKind::F32, why));
  CHECK(why.find("magic") != std::string::npos);
  std::string truncated = bytes.substr(0, bytes.size() - 4);
  CHECK_FALSE(readNpy(truncated, ScalarKind::F32, why));
  CHECK(why.find("shorter") != std::string::npos);
  std::string fortran = bytes;
  fortran.replace(fortran.find("False"), 5, "True ");
  CHECK_FALSE(readNpy(fortran, ScalarKind::F32, why));
}

TEST_CASE("interp: strided tensors, swizzled shared tiles, elect, barrier arrays, ordered atomics") {
  auto p = compile(R"(target sm_80;
kernel k(X: f32[M, N] stride(ld, 1), Y: f32[M, N], Z: u32[4], ld: i32)
  requires(ld >= N) grid(1) threads(128)
{
  shared t: bf16[8, 64] swizzle(128B);
  barrier pair[2] id(1) threads(64);
  let w = warp;
  for r in 0..M {
    for c in lane..N step 32 {
      Y[r, c] = X[r, c] + 1.0;
    }
  }
  for i in 0..4 unroll {
    t[w * 2 + i / 2, (i % 2) * 32 + lane] = bf16(f32(w * 1000 + i * 100 + lane));
  }
  sync pair[w / 2];
  syncthreads;
  elect {
    red.max Z[0], ordered(f32(w) - 1.5);
    let old = atom.add(Z[1], 1);
    Z[2 + w % 2] = u32(f32(t[7 - w * 2, 63]));
  }
}
)");
  RunRequest req;
  int64_t m = 3, n = 37;
  std::vector<double> x(size_t(m * n));
  for (size_t i = 0; i < x.size(); ++i) x[i] = double(i);
  req.tensors["X"] = HostTensor::fromDoubles(ScalarKind::F32, {m, n}, x);
  req.tensors["Z"] = HostTensor::zeros(ScalarKind::U32, {4});
  req.scalars["ld"] = 41;
  RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
  REQUIRE_MESSAGE(r.ok, p->messages());
  for (int64_t i = 0; i < m * n; ++i) CHECK(r.tensors.at("Y").at(i) == double(i) + 1);
  CHECK(r.tensors.at("X").at(m * n - 1) == double(m * n - 1));   // gathered back from the strided buffer
  const HostTensor &z = r.tensors.at("Z");
  Scalar best;
  best.i = int64_t(z.at(0));
  CHECK(z.at(1) == 4);                       // one elected lane per warp
  // unordered(Z[0]) is the largest f32(w) - 1.5: 1.5 (ordered keeps the float order in u32)
  uint32_t u = uint32_t(best.i), sign = uint32_t(int32_t(~u) >> 31), bits = u ^ (sign | 0x80000000u);
  float f;
  std::memcpy(&f, &bits, 4);
  CHECK(f == 1.5f);
  // Warp w reads row 7 - 2w, column 63: written by warp 3 - w as i = 3 (row 2(3-w) + 1, column 32 + 31).
  // With seed 0 the elected lanes run in warp order, so Z[2] is warp 2's read (warp 1 wrote 1331, which
  // bf16 rounds to 1328) and Z[3] warp 3's (warp 0 wrote 331, a tie, rounded to even: 332).
  CHECK(z.at(2) == 1328);
  CHECK(z.at(3) == 332);
  // The swizzle: element [1, 0] of a 128B-swizzled bf16 tile sits in 16-byte chunk 0 ^ 1 of row 1.
  SharedArray s;
  s.elem = ScalarKind::BF16;
  s.layout = ColumnBlocks{8, 64, 2, 128};
  CHECK(s.physical(64) == 128 + 16);
  CHECK(s.physical(7 * 64 + 8) == 7 * 128 + (1 ^ 7) * 16);
}

TEST_CASE("interp: shapes too large for the host and huge register arrays are diagnostics, not crashes") {
  auto p = sample("vector_add.cake");
  RunRequest req;
  req.shape["N"] = 2000000000;   // 4 GB per bf16 tensor
  CHECK_FALSE(runKernel(p->kernel(), p->sema, req, p->diags).ok);
  CHECK(p->messages().find("the interpreter's limit per tensor") != std::string::npos);
  auto q = compile("target sm_80;\nkernel k(X: f32[N]) grid(1) threads(32) {\n  var big: f32[100000, 1000];\n  X[0] = 1.0;\n}\n");
  RunRequest r2;
  r2.shape["N"] = 1;
  CHECK_FALSE(runKernel(q->kernel(), q->sema, r2, q->diags).ok);
  CHECK(q->has("E0903"));
}

TEST_CASE("interp: a constant let of vector type is broadcast; vector element access on lets and calls") {
  auto p = compile("target sm_80;\nkernel k(Y: f32[N]) grid(1) threads(32) {\n  let z: f32x4 = 1.5;\n"
                   "  let v = f32x4(z) + 1.0;\n  Y[lane] = z[3] + v[lane % 4] + f32x2(2.0, f32(lane))[1];\n}\n");
  RunRequest req;
  req.shape["N"] = 32;
  RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
  REQUIRE_MESSAGE(r.ok, p->messages());
  for (int l = 0; l < 32; ++l) CHECK(r.tensors.at("Y").at(l) == 1.5 + 2.5 + l);
}

TEST_CASE("interp: the .ftz math forms read subnormal arguments and write subnormal results as zero") {
  auto p = compile(R"(target sm_90;
kernel k(X: f32[N], Y: f32[N, 8]) grid(1) threads(32) {
  let t = i32(tid.x);
  if t < N {
    let x = X[t];
    Y[t, 0] = ex2(x);
    Y[t, 1] = ex2.ftz(x);
    Y[t, 2] = rcp(x);
    Y[t, 3] = rcp.ftz(x);
    Y[t, 4] = rsqrt(x);
    Y[t, 5] = rsqrt.ftz(x);
    Y[t, 6] = lg2(x);
    Y[t, 7] = lg2.ftz(x);
  }
}
)");
  const double sub = std::ldexp(1.0, -140);                       // an f32 subnormal
  std::vector<double> x = {-130.0, sub, std::ldexp(1.0, 127), 2.0};
  RunRequest req;
  req.tensors["X"] = HostTensor::fromDoubles(ScalarKind::F32, {4}, x);
  RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
  REQUIRE_MESSAGE(r.ok, p->messages());
  const HostTensor &y = r.tensors.at("Y");
  auto at = [&](int64_t i, int64_t j) { return y.at(i * 8 + j); };
  CHECK(at(0, 0) == std::ldexp(1.0, -130));                       // 2^-130: a subnormal result ...
  CHECK(at(0, 1) == 0.0);                                          // ... flushed by ex2.ftz
  CHECK(at(1, 0) == 1.0);                                          // 2^sub rounds to 1 either way
  CHECK(at(1, 1) == 1.0);
  CHECK(std::isinf(at(1, 2)));                                     // 1 / 2^-140 overflows f32 either way
  CHECK(std::isinf(at(1, 3)));
  CHECK(at(1, 4) == std::ldexp(1.0, 70));                          // rsqrt of the subnormal ...
  CHECK(std::isinf(at(1, 5)));                                     // ... of zero under .ftz
  CHECK(at(1, 6) == -140.0);
  CHECK(at(1, 7) == -INFINITY);
  CHECK(at(2, 2) == std::ldexp(1.0, -127));                        // 1 / 2^127: a subnormal result ...
  CHECK(at(2, 3) == 0.0);                                          // ... flushed by rcp.ftz
  for (int j = 0; j < 8; j += 2) CHECK(at(3, j) == at(3, j + 1));  // normal values: the same either way
}
