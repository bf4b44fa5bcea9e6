// E0307: indexing a value that has no elements.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  let s = 1.0;
  let t = s[0];                  // expected-error E0307 {{a value of type f32 cannot be indexed}}
  let u = x[1];                  // expected-error E0307 {{a value of type f32 cannot be indexed}}
}
