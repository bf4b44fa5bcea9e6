// The tensor-core samples on the interpreter against references computed here (double-precision sums of
// the bf16-rounded inputs), at small and ragged shapes: hopper_gemm (TMA + mbarrier ring + wgmma),
// ampere_gemm (cp.async ring + ldmatrix + mma.sync, ragged edges), attention_fwd (wgmma with a register A
// operand, online softmax on fragments, ping-pong named barriers, causal masking), kmeans_assign
// (gathers, rowargmin, row-vector stores; SPLIT=1 merges two warpgroups through shared memory).
#include "InterpTest.h"

#include <cmath>

using namespace cake;
using namespace cake::interp;
using namespace cake::interp::test;

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

namespace {

// softmax(Q K^T / sqrt(D)) V per (b, h), causal optional; LSE natural-log of the row sums.
void attentionReference(const std::vector<double> &q, const std::vector<double> &k, const std::vector<double> &v, int64_t B,
                        int64_t H, int64_t T, int64_t D, bool causal, std::vector<double> &o, std::vector<double> &lse) {
  o.assign(size_t(B * H * T * D), 0);
  lse.assign(size_t(B * H * T), 0);
  const double scale = 1 / std::sqrt(double(D));
  for (int64_t bh = 0; bh < B * H; ++bh)
    for (int64_t i = 0; i < T; ++i) {
      std::vector<double> s(size_t(T), -INFINITY);
      double mx = -INFINITY;
      for (int64_t j = 0; j < T; ++j) {
        if (causal && j > i) continue;
        double d = 0;
        for (int64_t x = 0; x < D; ++x) d += q[size_t((bh * T + i) * D + x)] * k[size_t((bh * T + j) * D + x)];
        s[size_t(j)] = d * scale;
        mx = std::max(mx, s[size_t(j)]);
      }
      double sum = 0;
      for (double &x : s) sum += (x = std::exp(x - mx));
      for (int64_t j = 0; j < T; ++j)
        for (int64_t x = 0; x < D; ++x) o[size_t((bh * T + i) * D + x)] += s[size_t(j)] / sum * v[size_t((bh * T + j) * D + x)];
      lse[size_t(bh * T + i)] = mx + std::log(sum);
    }
}

} // namespace

TEST_CASE("interp attention_fwd: online softmax on fragments, register-A wgmma, ping-pong barriers, ragged T, causal") {
  struct Case { int64_t pingpong, causal, t; };
  for (const Case &c : {Case{0, 0, 200}, Case{1, 0, 200}, Case{1, 1, 130}, Case{0, 1, 64}}) {
    INFO("PINGPONG = " << c.pingpong << ", CAUSAL = " << c.causal << ", T = " << c.t);
    auto p = sample("attention_fwd.cake", {{"PINGPONG", c.pingpong}, {"CAUSAL", c.causal}});
    const int64_t B = 1, H = 2, T = c.t, D = 128;
    std::vector<double> q = rounded(randoms(size_t(B * H * T * D), 11)), k = rounded(randoms(size_t(B * H * T * D), 12)),
                        v = rounded(randoms(size_t(B * H * T * D), 13));
    std::vector<double> o, lse;
    attentionReference(q, k, v, B, H, T, D, c.causal != 0, o, lse);
    RunRequest req;
    req.seed = uint64_t(c.t);
    req.tensors["Q"] = HostTensor::fromDoubles(ScalarKind::BF16, {B, H, T, D}, q);
    req.tensors["K"] = HostTensor::fromDoubles(ScalarKind::BF16, {B, H, T, D}, k);
    req.tensors["V"] = HostTensor::fromDoubles(ScalarKind::BF16, {B, H, T, D}, v);
    auto t0 = std::chrono::steady_clock::now();
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    MESSAGE("attention_fwd T = " << T << ": " << seconds(t0) << " s");
    CHECK(mismatches(r.tensors.at("O"), o, 1e-2, 2e-2) == 0);
    CHECK(mismatches(r.tensors.at("LSE"), lse, 1e-3, 1e-3) == 0);
  }
}

TEST_CASE("interp kmeans_assign: gathers, rowargmin, row-vector stores, the SPLIT merge through shared memory") {
  for (int64_t split : {0, 1}) {
    INFO("SPLIT = " << split);
    auto p = sample("kmeans_assign.cake", {{"SPLIT", split}});
    const int64_t N = 300, K = 200, D = 128;
    std::vector<double> x = rounded(randoms(size_t(N * D), 21)), c = rounded(randoms(size_t(K * D), 22));
    std::vector<double> cn(static_cast<size_t>(K), 0.0);
    for (int64_t j = 0; j < K; ++j)
      for (int64_t d = 0; d < D; ++d) cn[size_t(j)] += c[size_t(j * D + d)] * c[size_t(j * D + d)];
    for (double &n : cn) n = double(float(n));
    std::vector<double> dist = matmulNT(x, c, N, K, D);
    RunRequest req;
    req.tensors["X"] = HostTensor::fromDoubles(ScalarKind::BF16, {N, D}, x);
    req.tensors["C"] = HostTensor::fromDoubles(ScalarKind::BF16, {K, D}, c);
    req.tensors["CN"] = HostTensor::fromDoubles(ScalarKind::F32, {K}, cn);
    auto t0 = std::chrono::steady_clock::now();
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    MESSAGE("kmeans_assign N = " << N << ", K = " << K << ": " << seconds(t0) << " s");
    int bad = 0;
    for (int64_t i = 0; i < N; ++i) {
      double best = INFINITY;
      for (int64_t j = 0; j < K; ++j) best = std::min(best, cn[size_t(j)] - 2 * dist[size_t(i * K + j)]);
      int64_t got = int64_t(r.tensors.at("L").at(i));
      double gotD = r.tensors.at("MinD").at(i);
      // The label's distance must be the minimum (a near-tie may pick either centroid).
      bool labelOk = got >= 0 && got < K && cn[size_t(got)] - 2 * dist[size_t(i * K + got)] <= best + 1e-3;
      if (!labelOk || std::fabs(gotD - best) > 1e-3 * (1 + std::fabs(best))) {
        if (bad < 5) MESSAGE("point " << i << ": label " << got << " distance " << gotD << ", want " << best);
        ++bad;
      }
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("interp cluster samples: multicast TMA, arrive cta(r), cluster.sync; persistent tiles; bias + activations; TMA-store epilogue") {
  const int64_t M = 300, N = 256, K = 136;   // ragged M and K (TMA zero fill), two n-tiles for BN = 128
  std::vector<double> a = rounded(randoms(size_t(M * K), 31)), b = rounded(randoms(size_t(N * K), 32));
  std::vector<double> bias = randoms(size_t(N), 33);
  std::vector<double> prod = matmulNT(a, b, M, N, K);
  auto request = [&](uint64_t seed) {
    RunRequest req;
    req.seed = seed;
    req.numSms = 6;   // 3 clusters of 2: persistent blocks take several tiles each
    req.tensors["A"] = HostTensor::fromDoubles(ScalarKind::BF16, {M, K}, a);
    req.tensors["B"] = HostTensor::fromDoubles(ScalarKind::BF16, {N, K}, b);
    return req;
  };
  for (std::string name : {"hopper_gemm_persistent.cake", "hopper_gemm_tma_epilogue.cake"})
    for (uint64_t seed : {0, 5}) {
      INFO(name << " seed " << seed);
      auto p = sample(name, {{"BN", 128}});
      auto t0 = std::chrono::steady_clock::now();
      RunResult r = runKernel(p->kernel(), p->sema, request(seed), p->diags);
      REQUIRE_MESSAGE(r.ok, p->messages());
      MESSAGE(name << " " << M << "x" << N << "x" << K << ": " << seconds(t0) << " s");
      CHECK(mismatches(r.tensors.at("C"), prod, 1e-2, 1e-2) == 0);
    }
  for (int64_t act : {0, 1, 2}) {
    INFO("gemm_bias_act ACT = " << act);
    auto p = sample("gemm_bias_act.cake", {{"BN", 128}, {"ACT", act}});
    RunRequest req = request(uint64_t(act));
    req.tensors["bias"] = HostTensor::fromDoubles(ScalarKind::F32, {N}, bias);
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    std::vector<double> want(prod.size());
    for (size_t i = 0; i < prod.size(); ++i) {
      double x = prod[i] + double(float(bias[i % size_t(N)]));
      want[i] = act == 0 ? std::max(x, 0.0) : act == 1 ? 0.5 * x * (1 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
                                                        : x / (1 + std::exp(-x));
    }
    CHECK(mismatches(r.tensors.at("C"), want, 1e-2, 1e-2) == 0);
  }
}
