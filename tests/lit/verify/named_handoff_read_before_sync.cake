// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}named_handoff_read_before_sync.cake:30:39: error: cons (t = 0) reads 'buf' before it has observed the write that fills it [E0610]
// CHECK: hint: read it after a 'sync full' that takes this arrive (bar.sync orders the reader after everything the arriving threads did before their arrive)
// The consumer reads 'buf' before its 'sync full': nothing orders the read after the producer's write.
// E0610 at the read, a note at the producer's arrive that hands it over.
// Fixed twin: named_handoff_read_before_sync_fixed.cake.
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
      buf[i32(prod.thread)] = X[t * 128 + i32(prod.thread)] * 2.0;
      arrive full;
    }
    sync empty;
  }
  role cons = warpgroup(1) {
    for t in 0..tiles {
      Y[t * 128 + i32(cons.thread)] = buf[127 - i32(cons.thread)];
      sync full;
      arrive empty;
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@30 E0610 {{cons (t = 0) reads 'buf' before it has observed the write that fills it}}
// expected-note@30 {{counterexample: loop 't' runs 1 iteration (N = 128)}}
// expected-note@23 {{filled here by prod (t = 0)}}
// expected-note@24 {{prod (t = 0) hands it over here}}
