// Unit tests of the interpreter's asynchronous constructs (src/interp/ExecAsync.cpp): mbarriers (phases,
// parity waits, tx-counts), TMA loads and stores through swizzled tiles with zero fill out of range,
// cp.async groups with valid(), and the diagnostics of mbarrier misuse (E0910, E0911).
#include "InterpTest.h"

#include <cmath>

using namespace cake;
using namespace cake::interp;
using namespace cake::interp::test;

namespace {

HostTensor ramp2d(ScalarKind t, int64_t rows, int64_t cols, int salt) {
  std::vector<double> v(size_t(rows * cols));
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(int64_t((i * 37 + size_t(salt)) % 251)) - 125;
  return HostTensor::fromDoubles(t, {rows, cols}, v);
}

} // namespace

TEST_CASE("interp tma_copy: TMA load + store through a 128B-swizzled tile, every seed bit-exact") {
  auto p = sample("tma_copy.cake");
  for (uint64_t seed : {0, 3, 11}) {
    RunRequest req;
    req.seed = seed;
    req.tensors["In"] = ramp2d(ScalarKind::BF16, 256, 192, 1);
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    CHECK(r.tensors.at("Out").bytes == req.tensors["In"].bytes);
  }
}

TEST_CASE("interp TMA: the swizzle places elements physically; out-of-range boxes read zero, stores are clipped") {
  // Loads a 16 x 64 box at (r0, c0) (partly outside X), checks one physical byte position of the
  // 128B swizzle through a plain read of the tile, and stores the tile back at (r0, c0) into Y.
  auto p = compile(R"(target sm_90;
kernel k(X: bf16[R, C] tma(box=[16, 64], swizzle=128B) align(16), Y: bf16[R, C] tma(box=[16, 64], swizzle=128B) align(16),
         P: f32[16, 64], r0: i32, c0: i32)
  grid(1) threads(32) {
  shared t: bf16[16, 64] swizzle(128B) align(1024);
  mbarrier full arrivals(1);
  elect {
    mbarrier.init full;
    fence.mbarrier_init;
  }
  syncthreads;
  elect {
    arrive full expect_tx(16 * 64 * 2);
    tma.load t <- X[r0, c0] signal(full);
  }
  wait full parity(0);
  for i in 0..32 {
    P[i / 2, (i % 2) * 32 + lane] = f32(t[i / 2, (i % 2) * 32 + lane]);
  }
  fence.proxy_async;
  syncthreads;
  elect {
    tma.store Y[r0, c0] <- t;
    tma.store.commit;
    tma.store.wait 0;
  }
}
)");
  const int64_t R = 20, C = 100;
  for (auto [r0, c0] : {std::pair<int64_t, int64_t>{0, 0}, {10, 60}, {-3, -5}}) {
    INFO("box at (" << r0 << ", " << c0 << ")");
    RunRequest req;
    req.tensors["X"] = ramp2d(ScalarKind::BF16, R, C, 7);
    req.scalars["r0"] = double(r0);
    req.scalars["c0"] = double(c0);
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    const HostTensor &x = req.tensors["X"], &y = r.tensors.at("Y"), &tile = r.tensors.at("P");
    int bad = 0;
    for (int64_t i = 0; i < 16; ++i)
      for (int64_t j = 0; j < 64; ++j) {
        int64_t gr = r0 + i, gc = c0 + j;
        bool inside = gr >= 0 && gr < R && gc >= 0 && gc < C;
        if (tile.at(i * 64 + j) != (inside ? x.at(gr * C + gc) : 0.0)) ++bad;
      }
    for (int64_t gr = 0; gr < R; ++gr)
      for (int64_t gc = 0; gc < C; ++gc) {
        bool stored = gr >= r0 && gr < r0 + 16 && gc >= c0 && gc < c0 + 64;
        if (y.at(gr * C + gc) != (stored ? x.at(gr * C + gc) : 0.0)) ++bad;
      }
    CHECK(bad == 0);
  }
}

TEST_CASE("interp mbarriers: a producer/consumer ring over parities completes under every seed") {
  // Warp 0 produces S-stage tiles with cp.async-free plain stores + arrive; warp 1 consumes after waiting
  // on full[s] and releases with arrive empty[s]: the parity protocol of docs/language.md 14.2.
  auto p = compile(R"(target sm_90;
kernel ring<S = 2>(X: f32[N], Y: f32[N]) requires(N % 32 == 0) grid(1) threads(64) {
  shared buf: f32[S][32];
  mbarrier full[S] arrivals(32);
  mbarrier empty[S] arrivals(32);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
  }
  syncthreads;
  let tiles = N / 32;
  if warp == 0 {
    for k in 0..tiles {
      let s = k % S;
      wait empty[s] parity(((k / S) & 1) ^ 1);
      buf[s][lane] = X[k * 32 + lane] * 2.0;
      arrive full[s];
    }
  } else {
    for k in 0..tiles {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      Y[k * 32 + lane] = buf[s][lane] + 1.0;
      arrive empty[s];
    }
  }
}
)");
  for (uint64_t seed : {0, 1, 2, 3, 4, 5}) {
    RunRequest req;
    req.seed = seed;
    std::vector<double> x = randoms(32 * 7, 3);
    req.tensors["X"] = HostTensor::fromDoubles(ScalarKind::F32, {32 * 7}, x);
    RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
    REQUIRE_MESSAGE(r.ok, p->messages());
    int bad = 0;
    for (size_t i = 0; i < x.size(); ++i)
      if (r.tensors.at("Y").at(int64_t(i)) != double(float(float(x[i]) * 2.0f + 1.0f))) ++bad;
    CHECK(bad == 0);
  }
}

TEST_CASE("interp cp.async: groups complete at their wait; valid(false) fills zeros; a missing wait shows") {
  auto p = compile(R"(target sm_80;
kernel k<WAIT = 1>(X: f32[N], Y: f32[N]) requires(N % 4 == 0) grid(1) threads(32) {
  shared s: f32[2][128];
  for g in 0..2 unroll {
    let i = g * 128 + lane * 4;
    cp.async s[g][lane * 4 +: 4] <- X[i +: 4] valid(i < N);
    cp.async.commit;
  }
  if WAIT == 1 {
    cp.async.wait 0;
  }
  for g in 0..2 unroll {
    let i = g * 128 + lane * 4;
    if i < N {
      Y[i +: 4] = s[g][lane * 4 +: 4];
    }
  }
  if lane == 0 && N < 256 {
    Y[0] = s[1][127];      // past N: zero-filled by valid(false)
  }
}
)");
  std::vector<double> x = randoms(200, 9);
  RunRequest req;
  req.tensors["X"] = HostTensor::fromDoubles(ScalarKind::F32, {200}, x);
  RunResult r = runKernel(p->kernel(), p->sema, req, p->diags);
  REQUIRE_MESSAGE(r.ok, p->messages());
  CHECK(r.tensors.at("Y").at(0) == 0.0);
  for (size_t i = 1; i < x.size(); ++i) CHECK(r.tensors.at("Y").at(int64_t(i)) == double(float(x[i])));

  // Without the wait nothing has landed when the warp reads (no hand-off in between): the race detector
  // reports the read of never-written memory (E0914); without the detector the shared memory's initial
  // 0xff bytes (NaN) show in the output.
  auto q = compile(R"(target sm_80;
kernel k(X: f32[N], Y: f32[N]) requires(N == 128) grid(1) threads(32) {
  shared s: f32[128];
  cp.async s[lane * 4 +: 4] <- X[lane * 4 +: 4];
  cp.async.commit;
  Y[lane * 4 +: 4] = s[lane * 4 +: 4];
}
)");
  RunRequest rq;
  rq.tensors["X"] = HostTensor::fromDoubles(ScalarKind::F32, {128}, randoms(128, 2));
  CHECK_FALSE(runKernel(q->kernel(), q->sema, rq, q->diags).ok);
  CHECK_MESSAGE(q->has("E0914"), q->messages());
  rq.checkRaces = false;
  RunResult bad = runKernel(q->kernel(), q->sema, rq, q->diags);
  REQUIRE(bad.ok);
  CHECK(std::isnan(bad.tensors.at("Y").at(5)));
}

TEST_CASE("interp mbarrier diagnostics: use before init (E0910), arrival overflow (E0911), a wait that never completes (E0902)") {
  const char *src = R"(target sm_90;
kernel k<BUG = 0>(X: f32[N]) grid(1) threads(64) {
  shared t: f32[32];
  mbarrier full arrivals(1);
  if tid.x == 0 && BUG != 1 {
    mbarrier.init full;
  }
  syncthreads;
  if warp == 0 {
    if BUG == 2 {
      arrive full expect_tx(128);
      arrive full;
    } else {
      if BUG != 3 {
        elect { arrive full; }
      }
    }
  } else {
    wait full parity(0);
    X[lane] = 1.0;
  }
}
)";
  for (auto [bug, code] : {std::pair<int64_t, const char *>{1, "E0910"}, {2, "E0911"}, {3, "E0902"}}) {
    auto p = compile(src, {{"BUG", bug}});
    RunRequest req;
    req.shape["N"] = 32;
    CHECK_FALSE(runKernel(p->kernel(), p->sema, req, p->diags).ok);
    CHECK_MESSAGE(p->has(code), p->messages());
  }
  auto ok = compile(src);
  RunRequest req;
  req.shape["N"] = 32;
  CHECK(runKernel(ok->kernel(), ok->sema, req, ok->diags).ok);
}
