// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: verified
// A two-stage ring over ragged rows: the last tile of M rows may be partial, so the producer's stores
// and the consumer's loads of each stage sit under `if t * 32 + r < M`.  The guard holds no
// synchronisation (a data guard), and it is neither periodic in 't' nor a function of the trip count
// alone; the verifier takes both of its branches as possible for every thread, so every guarded access is
// checked against the ring's waits and releases.
// Fixed twin of guard_ragged_release_before_read.cake and guard_ragged_read_before_wait.cake.
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
      if t * 32 + r < M {
        Out[t * 32 + r, c +: 8] = a[s][r, c +: 8];
      }
      arrive empty[s];
    }
  }
}
