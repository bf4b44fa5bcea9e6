// The Blackwell samples on the interpreter against references computed here (double-precision sums of the
// bf16-rounded inputs): blackwell_gemm (TMA ring, tcgen05.mma into a two-accumulator tensor-memory ring,
// tcgen05.commit to mbarriers, tcgen05.ld epilogue, persistent tiles) and blackwell_kmeans_assign (the
// argmin read out of tensor memory, +inf padded centroids, ragged N).  Few SMs, so that blocks take several
// tiles and both rings wrap; several seeds, so that the MMAs and commits complete at different points.
#include "InterpTest.h"

using namespace cake;
using namespace cake::interp;
using namespace cake::interp::test;

TEST_CASE("interp blackwell_gemm: tcgen05.mma into a tensor-memory ring, commits to mbarriers, tcgen05.ld epilogue") {
  const int64_t M = 256, N = 256, K = 192;   // BN = 128: 4 tiles on 3 blocks, 3 k-tiles each (the S = 4 ring wraps)
  std::vector<double> a = rounded(randoms(size_t(M * K), 41)), b = rounded(randoms(size_t(N * K), 42));
  std::vector<double> want = matmulNT(a, b, M, N, K);
  auto p = sample("blackwell_gemm.cake", {{"BN", 128}});
  for (uint64_t seed : {0, 3, 9}) {
    INFO("seed " << seed);
    RunRequest req;
    req.seed = seed;
    req.numSms = 3;
    req.tensors["A"] = HostTensor::fromDoubles(ScalarKind::BF16, {M, K}, a);
    req.tensors["B"] = HostTensor::fromDoubles(ScalarKind::BF16, {N, K}, b);
    auto t0 = std::chrono::steady_clock::now();
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    MESSAGE("blackwell_gemm " << M << "x" << N << "x" << K << " seed " << seed << ": " << seconds(t0) << " s");
    CHECK(mismatches(r.tensors.at("C"), want, 1e-2, 1e-2) == 0);
  }
}

TEST_CASE("interp blackwell_kmeans_assign: argmin over tcgen05.ld rows, padded centroids, ragged N") {
  const int64_t N = 300, K = 200, D = 64, BN = 128, KP = (K + BN - 1) / BN * BN;
  std::vector<double> x = rounded(randoms(size_t(N * D), 51)), c = rounded(randoms(size_t(K * D), 52));
  std::vector<double> cn(size_t(KP), INFINITY);
  for (int64_t j = 0; j < K; ++j) {
    double s = 0;
    for (int64_t d = 0; d < D; ++d) s += c[size_t(j * D + d)] * c[size_t(j * D + d)];
    cn[size_t(j)] = double(float(s));
  }
  std::vector<double> dist = matmulNT(x, c, N, K, D);
  auto p = sample("blackwell_kmeans_assign.cake");
  for (uint64_t seed : {0, 4}) {
    INFO("seed " << seed);
    RunRequest req;
    req.seed = seed;
    req.numSms = 2;   // 3 row tiles on 2 blocks
    req.tensors["X"] = HostTensor::fromDoubles(ScalarKind::BF16, {N, D}, x);
    req.tensors["C"] = HostTensor::fromDoubles(ScalarKind::BF16, {K, D}, c);
    req.tensors["CN"] = HostTensor::fromDoubles(ScalarKind::F32, {KP}, cn);
    auto t0 = std::chrono::steady_clock::now();
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    MESSAGE("blackwell_kmeans_assign N = " << N << ", K = " << K << " seed " << seed << ": " << seconds(t0) << " s");
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
