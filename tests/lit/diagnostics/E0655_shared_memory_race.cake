// RUN: %cakec --verify-only --verify-diagnostics %s
// Lane 0 of every warp publishes a partial sum; warp 0 reads them without a syncthreads in between.
target sm_80;
kernel k(X: f32[N], Out: f32[1]) requires(N == 256) grid(1) threads(256) {
  shared sums: f32[8];
  let v = warp.sum(X[i32(tid.x)]);
  if lane == 0 {
    sums[warp] = v;   // expected-note {{the other access: write by thread}}
    // expected-note@-1 {{no block barrier between this access and the racing one}}
  }
  if tid.x < 8 {
    // expected-error@+2 E0655 {{read 'sums[lane]' races with the write 'sums[warp]': two threads access shared 'sums'}}
    // expected-note@+1 {{counterexample: thread}}
    let s = sums[lane];
    if tid.x == 0 {
      Out[0] = s;
    }
  }
}
