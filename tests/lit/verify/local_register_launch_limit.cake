// RUN: %cakec --verify-only --verify-diagnostics %s
// 1024 threads leave at most 64 registers per thread, but the kernel keeps a 64-register array and an
// mma accumulator array live at the same time.
target sm_80;
// expected-error@+1 E0648 {{kernel 'k' needs at least 80 registers per thread for its register val}}
kernel k(X: f32[N]) requires(N >= 1024) grid(1) threads(1024) {
  // expected-note@+1 {{'acc' holds 64 registers per thread}}
  var acc: f32[64];
  // expected-note@+1 {{'frags' holds 16 registers per thread}}
  var frags: frag<mma_c, f32, 16, 8, 16>[4];
  for i in 0..64 unroll {
    acc[i] = 0.0;
  }
  X[i32(tid.x)] = acc[0] + frags[0][0];
}
