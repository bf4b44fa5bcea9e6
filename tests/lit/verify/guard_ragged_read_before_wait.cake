// RUN: %cakec --verify-only --verify-diagnostics %s
// The consumer's guarded read of a stage comes before its wait on the stage's 'full' barrier.
// Fixed twin: guard_ragged_rows_fixed.cake.
target sm_90a;

kernel ragged<S = 2>(
    A: f32[M, 32] align(16),
    Out: f32[M, 32] align(16))
  grid(1) threads(256)
{
  shared a: f32[S][32, 32] align(16);
  mbarrier full[S] arrivals(128);
  mbarrier empty[S] arrivals(128);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  let tiles = cdiv(M, 32);
  role load = warpgroup(0) {
    for t in 0..tiles {
      let s = t % S;
      wait empty[s] parity(((t / S) & 1) ^ 1);
      let r = i32(load.thread) / 4;
      let c = (i32(load.thread) % 4) * 8;
      if t * 32 + r < M {
        a[s][r, c +: 8] = A[t * 32 + r, c +: 8];
      }
      arrive full[s];
    }
  }
  role math = warpgroup(1) {
    for t in 0..tiles {
      let s = t % S;
      let r = i32(math.thread) / 4;
      let c = (i32(math.thread) % 4) * 8;
      if t * 32 + r < M {
        Out[t * 32 + r, c +: 8] = a[s][r, c +: 8];
      }
      wait full[s] parity((t / S) & 1);
      arrive empty[s];
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@39 E0610 {{math (t = 0) reads 'a[0]' before anything has been written to it}}
// expected-note@39 {{counterexample: loop 't' runs 1 iteration (M = 1)}}
