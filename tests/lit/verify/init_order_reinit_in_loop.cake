// RUN: %cakec --verify-only --verify-diagnostics %s
// A tile loop that re-initialises its mbarrier at the top of every iteration: the second iteration's init
// runs after the previous iteration published and waited on the barrier, while slower warps may still wait.
target sm_90;

kernel tiles(A: f32[N], Out: f32[N])
  requires(N % 128 == 0)
  grid(1) threads(128)
{
  shared buf: f32[128];
  mbarrier done arrivals(128);
  for kt in 0..N / 128 {
    if tid.x == 0 {
      mbarrier.init done;
    }
    syncthreads;
    buf[i32(tid.x)] = A[kt * 128 + i32(tid.x)];
    arrive done;
    wait done parity(0);
    Out[kt * 128 + i32(tid.x)] = buf[i32(tid.x)];
    syncthreads;
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@19 E0606 {{mbarrier 'done' completes phase 1 while a waiter still waits for phase 0}}
// expected-note@19 {{counterexample: loop 'kt' runs 2 iterations (N = 256)}}
// expected-note@19 {{the block waits here for phase 0 (kt = 1); while it has not looked yet, phases 0 and 1 can both complete}}
// expected-note@11 {{barrier declared here}}
// expected-error@14 E0657 {{mbarrier 'done' is initialised again after the previous iteration of loop 'kt' published or used it}}
// expected-note@12 {{the loop runs the init again in every iteration, after the barrier or use later in its body}}
