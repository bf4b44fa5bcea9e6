// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: hint: move the arrive on 'empty[0]' below math's last read of 'a[0]': a stage is released after its reads
// The consumer releases each stage before its guarded read of it: the producer's refill of the stage two
// tiles later may land while the rows are still being read.  The ragged-row guard around both accesses
// hides nothing: either branch may run, so the read counts.
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
      wait full[s] parity((t / S) & 1);
      let r = i32(math.thread) / 4;
      let c = (i32(math.thread) % 4) * 8;
      arrive empty[s];
      if t * 32 + r < M {
        Out[t * 32 + r, c +: 8] = a[s][r, c +: 8];
      }
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@32 E0609 {{load (t = 2) overwrites 'a[0]' while math may still read it}}
// expected-note@32 {{counterexample: loop 't' runs 3 iterations (M = 65)}}
// expected-note@45 {{math reads 'a[0]' here (t = 0)}}
// expected-note@43 {{releases it here (t = 0), before the read: load's wait on 'empty[0]' passes on this arrive}}
