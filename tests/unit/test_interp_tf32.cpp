// tf32 mma.sync on the interpreter: the tf32 rounding of an element write (to nearest, ties to even) and the tf32_gemm
// sample (element writes into m16n8k8 tf32 fragments from shared f32 tiles) against a double-precision
// reference of the tf32-rounded inputs.
#include "InterpTest.h"

#include <cmath>

using namespace cake;
using namespace cake::interp;
using namespace cake::interp::test;

namespace {

double tf32(double x) { return roundToFloat(x, ScalarKind::TF32); }

// B[k, n] (row-major) -> its transpose [n, k], for matmulNT.
std::vector<double> transposed(const std::vector<double> &b, int64_t k, int64_t n) {
  std::vector<double> t(b.size());
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) t[size_t(j * k + kk)] = b[size_t(kk * n + j)];
  return t;
}

} // namespace

TEST_CASE("interp tf32 rounding: 10 mantissa bits, nearest, ties to even (cvt.rn)") {
  CHECK(tf32(1.0) == 1.0);
  CHECK(tf32(1.0 + std::ldexp(1.0, -11)) == 1.0);                             // a tie rounds to the even 1.0
  CHECK(tf32(-(1.0 + std::ldexp(1.0, -11))) == -1.0);
  const double odd = 1.0 + std::ldexp(1.0, -10);                              // last kept bit set
  CHECK(tf32(odd + std::ldexp(1.0, -11)) == 1.0 + std::ldexp(1.0, -9));       // a tie above an odd value: up
  CHECK(tf32(-(odd + std::ldexp(1.0, -11))) == -(1.0 + std::ldexp(1.0, -9)));
  CHECK(tf32(1.0 + std::ldexp(1.0, -12)) == 1.0);                             // below the tie: down
  CHECK(tf32(1.0 + 3 * std::ldexp(1.0, -12)) == 1.0 + std::ldexp(1.0, -10));  // above: up
  CHECK(tf32(std::exp(40.0)) == doctest::Approx(std::exp(40.0)).epsilon(1e-3)); // f32 range (f16 overflows)
  CHECK(std::isinf(tf32(INFINITY)));
}

TEST_CASE("interp tf32_gemm: element writes into tf32 fragments, mma.sync m16n8k8 tf32, f32 accumulation") {
  struct Case { std::map<std::string, int64_t> defines; int64_t m, n, k; };
  for (const Case &c : {Case{{{"BM", 16}, {"BN", 8}, {"BK", 32}}, 16, 8, 32}, Case{{}, 64, 32, 96}}) {
    INFO("M = " << c.m << ", N = " << c.n << ", K = " << c.k);
    auto p = sample("tf32_gemm.cake", c.defines);
    std::vector<double> a = randoms(size_t(c.m * c.k), 21), b = randoms(size_t(c.k * c.n), 22);
    for (double &x : a) x = double(float(x));   // f32 data
    for (double &x : b) x = double(float(x));
    std::vector<double> at = a, bt = b;
    for (double &x : at) x = tf32(x);
    for (double &x : bt) x = tf32(x);
    std::vector<double> want = matmulNT(at, transposed(bt, c.k, c.n), c.m, c.n, c.k),
                        exact = matmulNT(a, transposed(b, c.k, c.n), c.m, c.n, c.k);
    RunRequest req;
    req.tensors["A"] = HostTensor::fromDoubles(ScalarKind::F32, {c.m, c.k}, a);
    req.tensors["B"] = HostTensor::fromDoubles(ScalarKind::F32, {c.k, c.n}, b);
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    // f32 accumulation of exact tf32 products: within f32 rounding of the tf32-input reference ...
    CHECK(mismatches(r.tensors.at("C"), want, 1e-5, 1e-5) == 0);
    // ... and visibly not the f32-input product (the inputs were rounded to 10 mantissa bits).
    int differ = 0;
    for (size_t i = 0; i < exact.size(); ++i) differ += std::fabs(r.tensors.at("C").at(int64_t(i)) - exact[i]) > 1e-5;
    CHECK(differ > 0);
  }
}
