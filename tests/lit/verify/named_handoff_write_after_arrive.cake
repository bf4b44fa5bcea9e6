// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}named_handoff_write_after_arrive.cake:24:7: error: prod (t = 0) writes 'buf' after its arrive on 'full' (t = 0), which hands it to cons: the arrive publishes only what comes before it [E0614]
// CHECK: hint: move the write above the 'arrive full' (bar.arrive orders only what comes before it)
// The producer writes 'buf' after its 'arrive full': the consumer's sync orders it only after what came
// before the arrive, so its read races with the write.  E0614 at the write.
// Fixed twin: named_handoff_write_after_arrive_fixed.cake.
target sm_90a;

kernel handoff(X: f32[N] align(16), Y: f32[N] align(16))
  requires(N % 128 == 0)
  grid(1) threads(256)
{
  shared buf: f32[128];
  barrier full id(1) threads(256);
  barrier empty id(2) threads(256);
  let tiles = N / 128;
  role prod = warpgroup(0) {
    for t in 0..tiles {
      if t > 0 {
        sync empty;
      }
      arrive full;
      buf[i32(prod.thread)] = X[t * 128 + i32(prod.thread)] * 2.0;
    }
    sync empty;
  }
  role cons = warpgroup(1) {
    for t in 0..tiles {
      sync full;
      Y[t * 128 + i32(cons.thread)] = buf[127 - i32(cons.thread)];
      arrive empty;
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@24 E0614 {{prod (t = 0) writes 'buf' after its arrive on 'full' (t = 0), which hands it to cons: the arrive publishes only what comes before it}}
// expected-note@24 {{counterexample: loop 't' runs 1 iteration (N = 128)}}
// expected-note@23 {{prod arrives here (t = 0), before the write}}
// expected-note@31 {{cons reads 'buf' here (t = 0) after its sync on 'full', unordered with the write}}
