// The library's k-means kernels (kernels/kmeans) on the interpreter against references computed here, at
// small ragged shapes with two batches: the sm80 assignment (cp.async + ldmatrix + mma.sync), the sm90
// assignment (clusters, multicast TMA, register-A wgmma, ping-pong), the one-launch KNN (knn_small) and the
// centroid update (atomics).
#include "InterpTest.h"

#include <algorithm>
#include <cmath>
#include <tuple>

using namespace cake;
using namespace cake::interp;
using namespace cake::interp::test;

namespace {

struct KmeansData {
  int64_t B = 2, N = 300, K = 150, D = 128, KP;
  std::vector<double> x, c, cn;
  explicit KmeansData(int64_t kp) : KP(kp) {   // kp = cdiv(K, 2 * BN) * 2 * BN, or K (unpadded norms)
    x = randoms(size_t(B * N * D), 41);
    c = randoms(size_t(B * K * D), 42);
    for (double &v : x) v = bf16(v);
    for (double &v : c) v = bf16(v);
    cn.assign(size_t(B * KP), INFINITY);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < K; ++k) {
        double s = 0;
        for (int64_t d = 0; d < D; ++d) s += c[size_t((b * K + k) * D + d)] * c[size_t((b * K + k) * D + d)];
        cn[size_t(b * KP + k)] = double(float(s));
      }
  }
  double dist(int64_t b, int64_t i, int64_t k) const {
    double dot = 0;
    for (int64_t d = 0; d < D; ++d) dot += x[size_t((b * N + i) * D + d)] * c[size_t((b * K + k) * D + d)];
    return cn[size_t(b * KP + k)] - 2 * dot;
  }
  RunRequest request() const {
    RunRequest req;
    req.numSms = 4;
    req.tensors["X"] = HostTensor::fromDoubles(ScalarKind::BF16, {B, N, D}, x);
    req.tensors["C"] = HostTensor::fromDoubles(ScalarKind::BF16, {B, K, D}, c);
    req.tensors["CN"] = HostTensor::fromDoubles(ScalarKind::F32, {B, KP}, cn);
    return req;
  }
  // Labels must name a nearest centroid (near-ties may pick either); MinD its distance.
  int check(const RunResult &r) const {
    int bad = 0;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < N; ++i) {
        double best = INFINITY;
        for (int64_t k = 0; k < K; ++k) best = std::min(best, dist(b, i, k));
        int64_t l = int64_t(r.tensors.at("L").at(b * N + i));
        double md = r.tensors.at("MinD").at(b * N + i);
        bool ok = l >= 0 && l < K && dist(b, i, l) <= best + 1e-3 && std::fabs(md - best) <= 1e-3 * (1 + std::fabs(best));
        if (!ok && bad++ < 5) MESSAGE("batch " << b << " point " << i << ": label " << l << " (" << md << "), want " << best);
      }
    return bad;
  }
};

} // namespace

TEST_CASE("interp kernels/kmeans assign_sm80: cp.async ring, ldmatrix, mma.sync, unpadded norms, two batches") {
  KmeansData data(150);   // CN [B, K]: the last tile's columns past K are masked by the kernel (BN = 64)
  auto p = repoFile("kernels/kmeans/assign_sm80.cake");
  RunResult r = runKernel(p->kernel(), p->sema, data.request(), p->diags);
  REQUIRE_MESSAGE(r.ok, p->messages());
  CHECK(data.check(r) == 0);
}

TEST_CASE("interp kernels/kmeans assign_sm90: clusters, multicast TMA, register-A wgmma, ping-pong, quad merge") {
  KmeansData data(256);   // BN = 128
  for (std::map<std::string, int64_t> defines : {std::map<std::string, int64_t>{}, {{"AREG", 0}, {"PP", 0}, {"QUAD", 0}}}) {
    INFO("AREG/PP/QUAD defaults: " << defines.empty());
    auto p = repoFile("kernels/kmeans/assign_sm90.cake", defines);
    RunResult r = runKernel(p->kernel("kmeans_assign"), p->sema, data.request(), p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    CHECK(data.check(r) == 0);
  }
}

// Queries and a corpus for the KNN kernels: duplicate corpus rows (in different tiles) make exact ties, which
// must come out by index (twin[k]: the smallest row equal to row k); every third query lies near row 3.
struct KnnData {
  int64_t B = 2, N = 150, K = 600, D;
  std::vector<double> x, c;
  std::vector<int64_t> twin;
  explicit KnnData(int64_t d) : D(d), x(randoms(size_t(B * N * d), 61)), c(randoms(size_t(B * K * d), 62)),
                                twin(size_t(K), -1) {
    for (double &v : c) v = bf16(v);
    for (int64_t k = 0; k + 64 < K; k += 7) twin[size_t(k + 64)] = k;      // row k + 64 == row k (the next tile)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t e = 0; e < D; ++e) {
        for (int64_t k = K - 1; k >= 0; --k)
          if (twin[size_t(k)] >= 0) c[size_t((b * K + k) * D + e)] = c[size_t((b * K + twin[size_t(k)]) * D + e)];
        for (int64_t i = 0; i < N; i += 3)
          x[size_t((b * N + i) * D + e)] = c[size_t((b * K + 3) * D + e)] + 0.01 * x[size_t((b * N + i) * D + e)];
      }
    for (int64_t k = 0; k < K; ++k)                  // chains (k + 128 == k + 64 == k) end at the first row
      if (twin[size_t(k)] >= 0 && twin[size_t(twin[size_t(k)])] >= 0) twin[size_t(k)] = twin[size_t(twin[size_t(k)])];
    for (double &v : x) v = bf16(v);
  }
  // The rows' squared norms (l2) or zeros (the inner product), f32, [B, len] past which +inf (CN's padding).
  std::vector<double> norms(const std::vector<double> &rows, int64_t count, int64_t len, bool l2) const {
    std::vector<double> out(size_t(B * len), INFINITY);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < count; ++k) {
        double s = 0;
        for (int64_t e = 0; e < D; ++e) s += rows[size_t((b * count + k) * D + e)] * rows[size_t((b * count + k) * D + e)];
        out[size_t(b * len + k)] = l2 ? double(float(s)) : 0.0;
      }
    return out;
  }
  // OD / OI [B, N, KK]: each query's KK nearest rows, ascending by (distance, index) - for the inner product
  // the largest products, descending; distances within bf16 rounding of the reference (double sums of the
  // rounded inputs).  Returns the number of wrong entries (the first five are reported).
  int check(const RunResult &r, int64_t KK, bool l2) const {
    int bad = 0;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < N; ++i) {
        std::vector<std::pair<double, int64_t>> ref;      // (rank key, index): ascending is the wanted order
        for (int64_t k = 0; k < K; ++k) {
          double dot = 0, xx = 0, cc = 0;
          for (int64_t e = 0; e < D; ++e) {
            double xv = x[size_t((b * N + i) * D + e)], cv = c[size_t((b * K + k) * D + e)];
            dot += xv * cv;
            xx += xv * xv;
            cc += cv * cv;
          }
          ref.push_back({l2 ? xx + cc - 2 * dot : -dot, k});
        }
        std::sort(ref.begin(), ref.end());
        for (int64_t e = 0; e < KK; ++e) {
          double got = r.tensors.at("OD").at((b * N + i) * KK + e);
          int64_t j = int64_t(r.tensors.at("OI").at((b * N + i) * KK + e));
          double want = l2 ? ref[size_t(e)].first : -ref[size_t(e)].first;
          double tol = 2e-2 * (1 + std::fabs(want));
          bool ok = j >= 0 && j < K && std::fabs(got - want) <= tol;
          if (ok) {                                        // j's own distance is the e-th best (near-ties aside)
            double own = 0;
            for (const auto &[key, k] : ref)
              if (k == j) own = l2 ? key : -key;
            ok = std::fabs(own - want) <= tol;
          }
          if (ok && e > 0) {                               // sorted
            double prev = r.tensors.at("OD").at((b * N + i) * KK + e - 1);
            ok = l2 ? prev <= got : prev >= got;
          }
          if (ok && twin[size_t(j)] >= 0) {                // a row's smaller twin comes first (ties by index)
            bool before = false;
            for (int64_t f = 0; f < e; ++f) before |= int64_t(r.tensors.at("OI").at((b * N + i) * KK + f)) == twin[size_t(j)];
            ok = before;
          }
          if (!ok && bad++ < 5) MESSAGE("batch " << b << " query " << i << " entry " << e << ": (" << got << ", " << j << "), want " << want);
        }
      }
    return bad;
  }
};

// The LP lists per row of a split kernel (PD / PI scores, QN the query norms) merged by knn_merge into OD / OI.
RunResult mergeLists(Program &p, const RunResult &lists, const std::string &pd, const std::string &pi,
                     const HostTensor &qn, bool l2) {
  RunRequest merge;
  merge.tensors["PD"] = lists.tensors.at(pd);
  merge.tensors["PI"] = lists.tensors.at(pi);
  merge.tensors["QN"] = qn;
  merge.scalars["scale"] = l2 ? 1.0 : -0.5;
  return runKernel(p.kernel("knn_merge"), p.sema, merge, p.diags);
}

// knn_small: the KK nearest corpus rows of every query in one launch (norms, per-thread lists and a quad merge,
// or QL = 1: one list per row held by the quad), or with the corpus cut into splits and the warps of a block
// sharing query rows (WC column groups), whose lists knn_merge merges.
TEST_CASE("interp kernels/kmeans knn_small: in-kernel norms, lists, quad merge, ties by index, both metrics, corpus splits") {
  const KnnData data(64);
  // LP lists per row: LP / WC corpus splits, WC column groups (warps sharing the query rows) in each.
  // KK = 1 takes list_offer_pair's single-entry path; KK = 32 and 64 insert into long lists and segments.
  for (auto [KK, QL, l2, LP, WC, BN] :
       {std::tuple{int64_t(10), 0, true, int64_t(1), 1, 64}, {int64_t(10), 0, false, int64_t(1), 1, 64},
        {int64_t(10), 0, true, int64_t(3), 1, 64}, {int64_t(10), 0, false, int64_t(4), 1, 64},
        {int64_t(10), 1, true, int64_t(1), 1, 64}, {int64_t(10), 1, false, int64_t(3), 1, 64},
        {int64_t(10), 0, true, int64_t(16), 8, 16}, {int64_t(10), 1, false, int64_t(8), 8, 16},
        {int64_t(10), 1, true, int64_t(6), 2, 32}, {int64_t(1), 0, true, int64_t(1), 1, 32},
        {int64_t(1), 0, false, int64_t(3), 1, 64}, {int64_t(1), 0, true, int64_t(16), 8, 16},
        {int64_t(32), 0, true, int64_t(3), 1, 32}, {int64_t(64), 1, false, int64_t(1), 1, 32}}) {
    INFO("metric " << (l2 ? "l2" : "ip") << ", KK " << KK << ", " << LP << " lists per row, " << WC
                   << " column groups, " << (QL ? "quad lists" : "thread lists"));
    auto p = repoFile("kernels/kmeans/assign_sm90.cake", {{"HD", data.D}, {"KK", KK}, {"QL", QL}, {"WC", WC}, {"BN", BN}},
                      {"knn_small", "knn_merge"});
    RunRequest req;
    req.tensors["X"] = HostTensor::fromDoubles(ScalarKind::BF16, {data.B, data.N, data.D}, data.x);
    req.tensors["C"] = HostTensor::fromDoubles(ScalarKind::BF16, {data.B, data.K, data.D}, data.c);
    req.scalars["nscale"] = l2 ? 1.0 : 0.0;
    req.scalars["oscale"] = l2 ? 1.0 : -0.5;
    req.shape["LP"] = LP;      // WC = 1: 10 corpus tiles: splits of 4 (3: the last holds 2 and 2 past K) or 3 (4: 3, 3, 3, 1)
    RunResult r = runKernel(p->kernel("knn_small"), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    if (LP > 1) {              // the splits' lists -> knn_merge (OD, OI: [B, N, KK])
      r = mergeLists(*p, r, "OD", "OI", r.tensors.at("QN"), l2);
      REQUIRE_MESSAGE(r.ok, p->messages());
    }
    CHECK(data.check(r, KK, l2) == 0);
  }
}

// knn_topk: the wgmma KNN (clusters of two, multicast TMA, two accumulators in flight, ping-pong consumers)
// with per-thread lists (QL = 0, four per row and split) or one list per row held by the quad (QL = 1), over
// corpus splits, merged by knn_merge; CN and QN from the reference's norms.
TEST_CASE("interp kernels/kmeans knn_topk: wgmma tiles into thread lists and quad lists, splits, ties by index") {
  const KnnData data(128);
  for (auto [KK, QL, l2, splits, BN] : {std::tuple{int64_t(10), 0, true, int64_t(2), 128},
                                        {int64_t(64), 1, false, int64_t(1), 64}}) {
    INFO("metric " << (l2 ? "l2" : "ip") << ", KK " << KK << ", " << splits << " splits, " << (QL ? "quad lists" : "thread lists"));
    auto p = repoFile("kernels/kmeans/assign_sm90.cake", {{"KK", KK}, {"QL", QL}, {"BN", BN}}, {"knn_topk", "knn_merge"});
    const int64_t lp = splits * (QL ? 1 : 4), kp = (data.K + 2 * BN * splits - 1) / (2 * BN * splits) * splits * 2 * BN;
    RunRequest req;
    req.numSms = 4;
    req.tensors["X"] = HostTensor::fromDoubles(ScalarKind::BF16, {data.B, data.N, data.D}, data.x);
    req.tensors["C"] = HostTensor::fromDoubles(ScalarKind::BF16, {data.B, data.K, data.D}, data.c);
    req.tensors["CN"] = HostTensor::fromDoubles(ScalarKind::F32, {data.B, kp}, data.norms(data.c, data.K, kp, l2));
    req.shape["LP"] = lp;
    RunResult r = runKernel(p->kernel("knn_topk"), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    r = mergeLists(*p, r, "PD", "PI",
                   HostTensor::fromDoubles(ScalarKind::F32, {data.B, data.N}, data.norms(data.x, data.N, data.N, l2)), l2);
    REQUIRE_MESSAGE(r.ok, p->messages());
    CHECK(data.check(r, KK, l2) == 0);
  }
}

// knn_merge alone: LP sorted lists per row (ties in score broken by index; short lists end with (+inf, -1)) ->
// the row's KK best, through both paths: merge_across_lanes (the bitonic warp merge: KK = 32 and 64 - two entries
// per lane -, and KK <= 16 with LP <= 1.5 KK) and merge_in_lanes (register lists: KK = 1 past one list, KK = 10
// past 15); LP = 40 and 69: lanes holding two and three lists.
TEST_CASE("interp kernels/kmeans knn_merge: bitonic and register merges of sorted lists") {
  const int64_t B = 2, N = 5;
  for (int64_t KK : {1, 10, 32, 50, 64})
    for (int64_t LP : {1, 5, 40, 69}) {
      INFO("KK = " << KK << ", LP = " << LP);
      std::vector<double> pd(size_t(B * N * LP * KK)), pi(size_t(B * N * LP * KK)), qn(size_t(B * N));
      std::vector<std::vector<std::pair<double, int64_t>>> want(size_t(B * N));
      std::vector<double> r = randoms(pd.size(), 70 + uint64_t(KK + LP));
      for (int64_t row = 0; row < B * N; ++row) {
        qn[size_t(row)] = double(row);
        for (int64_t l = 0; l < LP; ++l) {
          int64_t filled = (l + row) % 4 == 3 ? KK / 2 : KK;           // some lists saw fewer than KK columns
          std::vector<std::pair<double, int64_t>> list;
          for (int64_t e = 0; e < filled; ++e) {
            double v = std::round(r[size_t((row * LP + l) * KK + e)] * 8) / 8;   // coarse: many equal scores
            list.push_back({v, (l * KK + e) * 7 % (LP * KK) + row});            // distinct columns
          }
          std::sort(list.begin(), list.end());
          for (auto entry : list) want[size_t(row)].push_back(entry);
          for (int64_t e = 0; e < KK; ++e) {
            size_t at = size_t((row * LP + l) * KK + e);
            pd[at] = e < filled ? list[size_t(e)].first : INFINITY;
            pi[at] = e < filled ? double(list[size_t(e)].second) : -1;
          }
        }
        std::sort(want[size_t(row)].begin(), want[size_t(row)].end());
      }
      auto p = repoFile("kernels/kmeans/assign_sm90.cake", {{"KK", KK}}, {"knn_merge"});
      RunRequest req;
      req.tensors["PD"] = HostTensor::fromDoubles(ScalarKind::F32, {B, N, LP, KK}, pd);
      req.tensors["PI"] = HostTensor::fromDoubles(ScalarKind::I32, {B, N, LP, KK}, pi);
      req.tensors["QN"] = HostTensor::fromDoubles(ScalarKind::F32, {B, N}, qn);
      req.scalars["scale"] = 2.0;
      RunResult res = runKernel(p->kernel("knn_merge"), p->sema, req, p->diags);
      REQUIRE_MESSAGE(res.ok, p->messages());
      int bad = 0;
      for (int64_t row = 0; row < B * N; ++row)
        for (int64_t e = 0; e < KK; ++e) {
          const auto &w = want[size_t(row)];
          double gotD = res.tensors.at("OD").at(row * KK + e);
          int64_t gotI = int64_t(res.tensors.at("OI").at(row * KK + e));
          bool ok = size_t(e) < w.size() ? gotI == w[size_t(e)].second && gotD == 2 * w[size_t(e)].first + double(row)
                                         : gotI == -1 && std::isinf(gotD);
          if (!ok && bad++ < 5) MESSAGE("row " << row << " entry " << e << ": (" << gotD << ", " << gotI << ")");
        }
      CHECK(bad == 0);
    }
}

TEST_CASE("interp kernels/kmeans centroid_accumulate + centroid_finalize: atomics into sums and counts") {
  const int64_t B = 2, N = 300, K = 7, D = 128;
  std::vector<double> x = randoms(size_t(B * N * D), 51), old = randoms(size_t(B * K * D), 52);
  for (double &v : x) v = bf16(v);
  for (double &v : old) v = bf16(v);
  std::vector<double> labels(size_t(B * N));
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = double((i * 5 + i / 7) % size_t(K - 1));   // label K-1 stays empty
  auto p = repoFile("kernels/kmeans/centroid_update.cake");
  RunRequest req;
  req.tensors["X"] = HostTensor::fromDoubles(ScalarKind::BF16, {B, N, D}, x);
  req.tensors["L"] = HostTensor::fromDoubles(ScalarKind::I32, {B, N}, labels);
  req.shape["K"] = K;
  RunResult acc = runKernel(p->kernel("centroid_accumulate"), p->sema, req, p->diags);
  REQUIRE_MESSAGE(acc.ok, p->messages());
  std::vector<double> sums(size_t(B * K * D), 0), counts(size_t(B * K), 0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < N; ++i) {
      int64_t k = int64_t(labels[size_t(b * N + i)]);
      counts[size_t(b * K + k)] += 1;
      for (int64_t d = 0; d < D; ++d) sums[size_t((b * K + k) * D + d)] += x[size_t((b * N + i) * D + d)];
    }
  int bad = 0;
  for (size_t i = 0; i < counts.size(); ++i) bad += acc.tensors.at("Counts").at(int64_t(i)) != counts[i];
  for (size_t i = 0; i < sums.size(); ++i) bad += std::fabs(acc.tensors.at("Sums").at(int64_t(i)) - sums[i]) > 1e-3;
  CHECK(bad == 0);

  RunRequest fin;
  fin.tensors["Sums"] = acc.tensors.at("Sums");
  fin.tensors["Counts"] = acc.tensors.at("Counts");
  fin.tensors["Old"] = HostTensor::fromDoubles(ScalarKind::BF16, {B, K, D}, old);
  RunResult r = runKernel(p->kernel("centroid_finalize"), p->sema, fin, p->diags);
  REQUIRE_MESSAGE(r.ok, p->messages());
  bad = 0;
  for (int64_t bk = 0; bk < B * K; ++bk)
    for (int64_t d = 0; d < D; ++d) {
      size_t i = size_t(bk * D + d);
      double want = counts[size_t(bk)] > 0 ? bf16(sums[i] / counts[size_t(bk)]) : old[i];
      bad += std::fabs(r.tensors.at("New").at(int64_t(i)) - want) > 1e-2 * (1 + std::fabs(want));
    }
  CHECK(bad == 0);
}
