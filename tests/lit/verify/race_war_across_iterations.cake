// RUN: %cakec --verify-only --verify-diagnostics %s
// A SIMT GEMM-style tile loop with only the barrier after the tile fill: iteration kt + 1 overwrites the
// tile while other threads still read it for iteration kt (write-after-read across the loop's wrap-around).
target sm_80;

kernel tiles<T = 128>(A: f32[N], Out: f32[N])
  requires(N % T == 0)
  grid(1) threads(T)
{
  shared tile: f32[T];
  let t = i32(tid.x);
  var acc: f32 = 0.0;
  for kt in 0..N / T {
    tile[t] = A[kt * T + t];
    syncthreads;
    acc += tile[(t + 1) % T];
  }
  Out[t] = acc;
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@16 E0655 {{read 'tile[(t + 1) % T]' races with the write 'tile[t]': two threads access shared 'tile' in the same barrier interval}}
// expected-note@14 {{the other access: write by thread 0 (warp 0, lane 0), kt = 1}}
// expected-note@16 {{counterexample: thread 127 (warp 3, lane 31), kt = 0 reads tile[0] while thread 0 (warp 0, lane 0), kt = 1 writes tile[0], in the same barrier interval (N = 256)}}
// expected-note@13 {{no block barrier separates them between one iteration of loop 'kt' and the next (the accesses are in different iterations)}}
