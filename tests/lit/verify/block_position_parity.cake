// RUN: %cakec --verify-only --verify-diagnostics %s
// The consumer's parity depends on which CTA runs it (block.x % 2): the sync analysis simulates one CTA per
// trip count, so the expression must not depend on the block's position beyond the trip counts (here CTA 1
// would read a stage no phase has filled).  Unproven, with the CTA in the counterexample.
// Fixed twin: block_position_parity_fixed.cake.
target sm_90a;

kernel divtrip<S = 2>(
    A: f32[N, 32] tma(box=[32, 32]) align(16),
    Out: f32[N, 32] align(16))
  grid(4) threads(256)
{
  shared a: f32[S][32, 32] align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(128);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  role load = warpgroup(0) {
    elect {
      if load.warp == 0 {
        for t in 0..N / 64 {
          let s = t % S;
          wait empty[s] parity(((t / S) & 1) ^ 1);
          arrive full[s] expect_tx(32 * 32 * 4);
          tma.load a[s] <- A[t * 32, 0] signal(full[s]);
        }
      }
    }
  }
  role math = warpgroup(1) {
    for t in 0..N / 64 {
      let s = t % S;
      wait full[s] parity(((t / S) & 1) ^ (i32(block.x) % 2));
      let r = i32(math.thread) / 4;
      let c = (i32(math.thread) % 4) * 8;
      Out[t * 32 + r, c +: 8] = a[s][r, c +: 8];
      arrive empty[s];
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@37 E0601 {{could not prove the synchronisation protocol for every shape: this expression depends on the shape or on which CTA runs it beyond the loop trip counts (N = 575, t = 7, t#2 = 7, block.x = 3)}}
