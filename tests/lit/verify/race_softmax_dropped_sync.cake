// RUN: %cakec --verify-only --verify-diagnostics %s
// A softmax-style block reduction whose syncthreads between the per-warp partial sums and the final combine
// was dropped: warp 0 reads part[lane] while lane 0 of the other warps may still be writing it.
target sm_80;

kernel row_max<WARPS = 4>(X: f32[R, C], Y: f32[R])
  requires(R >= 1, C == WARPS * 32)
  grid(R) threads(WARPS * 32)
{
  shared part: f32[WARPS];
  var m: f32 = X[i32(block.x), i32(tid.x)];
  m = warp.max(m);
  if lane == 0 {
    part[warp] = m;
  }
  if warp == 0 {
    var v: f32 = -inf;
    if lane < WARPS {
      v = part[lane];
    }
    v = warp.max(v);
    if lane == 0 {
      Y[i32(block.x)] = v;
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@19 E0655 {{read 'part[lane]' races with the write 'part[warp]': two threads access shared 'part' in the same barrier interval}}
// expected-note@14 {{the other access: write by thread 32 (warp 1, lane 0)}}
// expected-note@19 {{counterexample: thread 1 (warp 0, lane 1) reads part[1] while thread 32 (warp 1, lane 0) writes part[1], in the same barrier interval (R = 1, C = 128)}}
// expected-note@14 {{no block barrier between this access and the racing one}}
