// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}named_handoff_no_reverse.cake:20:7: error: prod (t = 1) writes 'buf' again before the threads that sync on 'full' have taken its previous hand-off (its arrive (t = 0)): bar.arrive does not wait for them, so nothing orders this write after their reads [E0614]
// CHECK: hint: hand the data back before reusing it: the readers 'arrive' on a second named barrier after their reads, and prod executes 'sync' on it before writing again
// The producer reuses 'buf' for the next tile with no hand-off back from the consumer: bar.arrive does not
// wait, so the write of tile 1 is not ordered after the consumer's read of tile 0, and the producer's second
// arrive counts again in the generation the consumer has not synced on yet.  E0614 at the reusing write.
// Fixed twin: named_handoff_no_reverse_fixed.cake.
target sm_90a;

kernel handoff(X: f32[N] align(16), Y: f32[N] align(16))
  requires(N % 128 == 0)
  grid(1) threads(256)
{
  shared buf: f32[128];
  barrier full id(1) threads(256);
  let tiles = N / 128;
  role prod = warpgroup(0) {
    for t in 0..tiles {
      buf[i32(prod.thread)] = X[t * 128 + i32(prod.thread)] * 2.0;
      arrive full;
    }
  }
  role cons = warpgroup(1) {
    for t in 0..tiles {
      sync full;
      Y[t * 128 + i32(cons.thread)] = buf[127 - i32(cons.thread)];
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@20 E0614 {{prod (t = 1) writes 'buf' again before the threads that sync on 'full' have taken its previous hand-off (its arrive (t = 0)): bar.arrive does not wait for them, so nothing orders this write after their reads}}
// expected-note@20 {{counterexample: loop 't' runs 2 iterations (N = 256)}}
// expected-note@21 {{prod arrives here (t = 0)}}
// expected-note@21 {{and again here (t = 1), not ordered after any sync of that generation: warps 0..3 can count twice in one generation, which then completes without the threads that sync on it}}
