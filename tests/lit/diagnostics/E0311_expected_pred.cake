// E0311: conditions must be pred; integers are not implicitly compared with zero.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], n: i32) requires(M) grid(M / BM) threads(128) {   // expected-error E0311 {{a requires condition must be of type pred, found i32}}
  if n { }                       // expected-error E0311 {{an if condition must be of type pred, found i32}}
  let s = select(1.0, n, n);     // expected-error E0311 {{the condition of select must be of type pred, found float constant}}
}
