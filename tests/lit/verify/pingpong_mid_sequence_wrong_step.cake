// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}pingpong_mid_sequence_wrong_step.cake:48:7: error: mbarrier 'full[1]' completes phase 1 while a waiter still waits for phase 0 [E0606]
// CHECK: hint: the agent that completes the barrier must wait for this waiter's release (e.g. an 'empty' barrier) before it starts the next phase
// CHECK: hint: the waits on 'full[0]' stop before the copies into it do (this one completes phase 1): every phase a copy completes needs a wait before the kernel ends
// The consumers step by 1 instead of 2: math[1] takes tiles 1, 2, ... that math[0] also takes, so the
// phases of full[] complete under it (E0606 at the wait).
// Fixed twin: pingpong_mid_sequence_wrong_step_fixed.cake.
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
  barrier turn[2] id(1) threads(256);
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
    if math.index == 1 {
      arrive turn[0];
    }
    for j in 0..pairs {
      let t = j + i32(math.index);
      let s = t % S;
      wait full[s] parity((t / S) & 1);
      sync turn[math.index];
      let r = i32(math.thread) / 4;
      let c = (i32(math.thread) % 4) * 8;
      Out[t * 32 + r, c +: 8] = a[s][r, c +: 8];
      arrive turn[1 - math.index];
      elect {
        arrive empty[s];
      }
    }
    if math.index == 0 {
      sync turn[0];
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@48 E0606 {{mbarrier 'full[1]' completes phase 1 while a waiter still waits for phase 0}}
// expected-note@48 {{counterexample: loop 't' runs 6 iterations, loop 'j' runs 3 iterations (M = 192)}}
// expected-note@48 {{math[0] waits here for phase 0 (j = 1); while it has not looked yet, phases 0 and 1 can both complete}}
// expected-note@36 {{phase 1 is completed by load (t = 4)}}
// expected-note@18 {{barrier declared here}}
// expected-error@36 E0612 {{tma.load by load (t = 3) into 'a[0]' may still be in flight when the kernel exits}}
// expected-note@36 {{counterexample: loop 't' runs 4 iterations, loop 'j' runs 2 iterations (M = 128)}}
// expected-note@48 {{math[0]'s last wait on 'full[0]' is here (j = 0), for phase 0}}
