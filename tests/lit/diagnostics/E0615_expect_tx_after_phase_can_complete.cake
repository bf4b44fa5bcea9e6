// E0615: an mbarrier.expect_tx posted after the phase's arrivals are in and a copy of the phase is in
// flight: that copy can land and complete the phase before the expect_tx.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;

kernel k<S = 2>(
    A: f32[M, 32] tma(box=[32, 32]) align(16),
    B: f32[M, 32] tma(box=[32, 32]) align(16),
    Out: f32[M, 32] align(16))
  requires(M % 32 == 0)
  grid(1) threads(256)
{
  shared a: f32[S][32, 32] align(1024);
  shared b: f32[S][32, 32] align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  let tiles = M / 32;
  role load = warp(0) {
    elect {
      for k in 0..tiles {
        let s = k % S;
        wait empty[s] parity(((k / S) & 1) ^ 1);
        arrive full[s] expect_tx(32 * 32 * 4);
        tma.load a[s] <- A[k * 32, 0] signal(full[s]);
        mbarrier.expect_tx full[s], 32 * 32 * 4;
        tma.load b[s] <- B[k * 32, 0] signal(full[s]);
      }
    }
  }
  role use = warpgroup(1) {
    for k in 0..tiles {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      let r = i32(use.thread) / 4;
      let c = (i32(use.thread) % 4) * 8;
      Out[k * 32 + r, c +: 8] = a[s][r, c +: 8] + b[s][r, c +: 8];
      elect {
        arrive empty[s];
      }
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@31 E0615 {{expect_tx (4096 bytes) by load (k = 0) on 'full[0]' comes after phase 0 can already complete}}
// expected-note@31 {{counterexample: loop 'k' runs 1 iteration (M = 32)}}
// expected-note@29 {{the phase's arrivals are complete after this arrive by load (k = 0), which expects 4096 bytes}}
// expected-note@30 {{this copy (4096 bytes, issued by load (k = 0)) may land before the expect_tx and complete phase 0}}
