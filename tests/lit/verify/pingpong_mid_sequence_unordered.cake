// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}pingpong_mid_sequence_unordered.cake:43:7: error: wait on 'full[0]' with parity 1 waits for phase -1 (the phase before initialisation, which counts as complete), but math[1] then reads 'a[0]' (j = 1), which no completed phase has filled [E0605]
// CHECK: hint: the k-th use of a stage of an S-stage ring waits with parity (k / S) & 1 (consumer) and ((k / S) & 1) ^ 1 (producer)
// Without the turn barriers nothing orders math[1]'s first wait on stage 0 (tile 3, parity 1) after the
// completion of phase 0: on a barrier still in phase 0 the parity-1 test passes at once (E0605 at the wait).
// Fixed twin: pingpong_mid_sequence_unordered_fixed.cake.
target sm_90a;

kernel pingpong<S = 3>(
    A: f32[M, 32] tma(box=[32, 32]) align(16),
    Out: f32[M, 32] align(16))
  requires(M % 64 == 0)
  grid(1) threads(384)
{
  shared a: f32[S][32, 32] align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  let tiles = M / 32;
  let pairs = M / 64;
  role load = warpgroup(0) {
    if load.warp == 0 {
      elect {
        for t in 0..tiles {
          let s = t % S;
          wait empty[s] parity(((t / S) & 1) ^ 1);
          arrive full[s] expect_tx(32 * 32 * 4);
          tma.load a[s] <- A[t * 32, 0] signal(full[s]);
        }
      }
    }
  }
  role math[2] = warpgroups(1..3) {
    for j in 0..pairs {
      let t = 2 * j + i32(math.index);
      let s = t % S;
      wait full[s] parity((t / S) & 1);
      let r = i32(math.thread) / 4;
      let c = (i32(math.thread) % 4) * 8;
      Out[t * 32 + r, c +: 8] = a[s][r, c +: 8];
      elect {
        arrive empty[s];
      }
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@43 E0605 {{wait on 'full[0]' with parity 1 waits for phase -1 (the phase before initialisation, which counts as complete), but math[1] then reads 'a[0]' (j = 1), which no completed phase has filled}}
// expected-note@43 {{counterexample: loop 't' runs 4 iterations, loop 'j' runs 2 iterations (M = 128)}}
// expected-note@43 {{math[1] passes this wait at once (j = 1)}}
// expected-note@46 {{and reads 'a[0]' here (j = 1)}}
