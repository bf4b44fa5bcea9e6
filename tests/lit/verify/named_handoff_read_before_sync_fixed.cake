// RUN: %cakec --verify-only --verify-diagnostics %s
// A one-way hand-off through named barriers: the producer warpgroup writes 'buf' and arrives on 'full'
// (bar.arrive: it does not wait); the consumer warpgroup syncs on 'full' (bar.sync), which orders it after
// everything the producer did before that arrive, reads 'buf', and arrives on 'empty'; the producer syncs on
// 'empty' before it writes 'buf' again (and once after its loop, for the consumer's last arrive).
// Fixed twin of named_handoff_read_before_sync.cake.
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
      sync full;
      Y[t * 128 + i32(cons.thread)] = buf[127 - i32(cons.thread)];
      arrive empty;
    }
  }
}
