// RUN: %cakec --verify-only --verify-diagnostics %s
// The warp reduction of syncwarp_warp_reduction.cake without the syncwarp before the final read: lane 0
// reads buf[1] while lane 1 of the same warp may still be writing it.  Lanes of one warp are not implicitly
// synchronous, so the race check reports it and suggests syncwarp.
target sm_80;

kernel warp_sum(X: f32[N], Y: f32[G])
  requires(N == G * 32)
  grid(G) threads(32)
{
  shared buf: f32[32];
  buf[lane] = X[i32(block.x) * 32 + lane];
  syncwarp;
  if lane < 16 { buf[lane] = buf[lane] + buf[lane + 16]; }
  syncwarp;
  if lane < 8 { buf[lane] = buf[lane] + buf[lane + 8]; }
  syncwarp;
  if lane < 4 { buf[lane] = buf[lane] + buf[lane + 4]; }
  syncwarp;
  // expected-note@+2 {{the other access: write by thread 1 (warp 0, lane 1)}}
  // expected-note@+1 {{no block barrier between this access and the racing one}}
  if lane < 2 { buf[lane] = buf[lane] + buf[lane + 2]; }
  // expected-error@+2 E0655 {{read 'buf[1]' races with the write 'buf[lane]': two threads access shared 'buf' in the same barrier interval}}
  // expected-note@+1 {{counterexample: thread 0 (warp 0, lane 0) reads buf[1] while thread 1 (warp 0, lane 1) writes buf[1], in the same barrier interval (N = 32, G = 1)}}
  if lane == 0 { Y[i32(block.x)] = buf[0] + buf[1]; }
}
