// The tensor-core samples on the interpreter against references computed here (double-precision sums of
// the bf16-rounded inputs), at small and ragged shapes: hopper_gemm (TMA + mbarrier ring + wgmma),
// ampere_gemm (cp.async ring + ldmatrix + mma.sync, ragged edges), attention_fwd (wgmma with a register A
// operand, online softmax on fragments, ping-pong named barriers, causal masking), kmeans_assign
// (gathers, rowargmin, row-vector stores; SPLIT=1 merges two warpgroups through shared memory).
#include "InterpTest.h"

#include <chrono>
#include <cmath>

using namespace cake;
using namespace cake::interp;
using namespace cake::interp::test;

namespace {

std::vector<double> rounded(std::vector<double> v) {
  for (double &x : v) x = bf16(x);
  return v;
}

// Counts elements outside |got - want| <= atol + rtol * |want|, printing the first few.
int mismatches(const HostTensor &got, const std::vector<double> &want, double atol, double rtol) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double g = got.at(int64_t(i));
    if (!(std::fabs(g - want[i]) <= atol + rtol * std::fabs(want[i]))) {
      if (bad < 5) MESSAGE("element " << i << ": got " << g << ", want " << want[i]);
      ++bad;
    }
  }
  return bad;
}

std::vector<double> matmulNT(const std::vector<double> &a, const std::vector<double> &b, int64_t m, int64_t n, int64_t k) {
  std::vector<double> c(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < k; ++kk) s += a[size_t(i * k + kk)] * b[size_t(j * k + kk)];
      c[size_t(i * n + j)] = s;
    }
  return c;
}

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

TEST_CASE("interp hopper_gemm: TMA ring, mbarrier parities, wgmma from 128B-swizzled tiles, under three seeds") {
  auto p = sample("hopper_gemm.cake");
  const int64_t M = 256, N = 256, K = 128;
  std::vector<double> a = rounded(randoms(size_t(M * K), 1)), b = rounded(randoms(size_t(N * K), 2));
  std::vector<double> want = matmulNT(a, b, M, N, K);
  for (uint64_t seed : {0, 7, 8}) {
    RunRequest req;
    req.seed = seed;
    req.tensors["A"] = HostTensor::fromDoubles(ScalarKind::BF16, {M, K}, a);
    req.tensors["B"] = HostTensor::fromDoubles(ScalarKind::BF16, {N, K}, b);
    auto t0 = std::chrono::steady_clock::now();
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    MESSAGE("hopper_gemm 256x256x128 seed " << seed << ": " << seconds(t0) << " s");
    CHECK(mismatches(r.tensors.at("C"), want, 1e-2, 1e-2) == 0);
  }
}

TEST_CASE("interp ampere_gemm: cp.async ring with valid() edges, ldmatrix(.trans), mma.sync, ragged shapes") {
  struct Case { std::map<std::string, int64_t> defines; int64_t m, n, k; };
  for (const Case &c : {Case{{{"BM", 64}, {"BN", 64}, {"BK", 32}, {"WM", 32}, {"WN", 32}}, 100, 72, 40},
                        Case{{}, 130, 264, 72}}) {
    auto p = sample("ampere_gemm.cake", c.defines);
    INFO("M = " << c.m << ", N = " << c.n << ", K = " << c.k);
    std::vector<double> a = rounded(randoms(size_t(c.m * c.k), 3)), b = rounded(randoms(size_t(c.k * c.n), 4));
    std::vector<double> bt(size_t(c.n * c.k));
    for (int64_t i = 0; i < c.k; ++i)
      for (int64_t j = 0; j < c.n; ++j) bt[size_t(j * c.k + i)] = b[size_t(i * c.n + j)];
    std::vector<double> want = matmulNT(a, bt, c.m, c.n, c.k);
    RunRequest req;
    req.tensors["A"] = HostTensor::fromDoubles(ScalarKind::BF16, {c.m, c.k}, a);
    req.tensors["B"] = HostTensor::fromDoubles(ScalarKind::BF16, {c.k, c.n}, b);
    auto t0 = std::chrono::steady_clock::now();
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    MESSAGE("ampere_gemm " << c.m << "x" << c.n << "x" << c.k << ": " << seconds(t0) << " s");
    CHECK(mismatches(r.tensors.at("C"), want, 1e-2, 1e-2) == 0);
  }
}
