// E0310: positions that need compile-time constants given runtime values.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], n: i32) grid(M / BM) threads(n) {   // expected-error E0310 {{the thread count must be a compile-time constant}}
  shared a: f32[n];              // expected-error E0310 {{a shared array dimension must be a compile-time constant}}
  var r: f32[M];                 // expected-error E0310 {{a register array dimension must be a compile-time constant}}
  for k in 0..4 {
    cp.async.wait k;             // expected-error E0310 {{the number of pending groups must be a compile-time constant}}
  }
}
