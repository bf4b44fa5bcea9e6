// E0614: a named-barrier hand-off writes its data after the arrive that publishes it: the consumer's
// 'sync full' orders it only after what the producer did before 'arrive full'.
// RUN: %cakec --verify-only --verify-diagnostics %s
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
// expected-error@20 E0614 {{prod (t = 0) writes 'buf' after its arrive on 'full' (t = 0), which hands it to cons: the arrive publishes only what comes before it}}
// expected-note@20 {{counterexample: loop 't' runs 1 iteration (N = 128)}}
// expected-note@19 {{prod arrives here (t = 0), before the write}}
// expected-note@27 {{cons reads 'buf' here (t = 0) after its sync on 'full', unordered with the write}}
