// E0306: the number of indices must equal the dims of the bracket group being indexed.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  shared a: f32[2][16, 16];
  let v = A[0];                  // expected-error E0306 {{'A' has 2 dimensions here but 1 indices were given}}
  let w = a[0, 1];               // expected-error E0306 {{'a' has 1 dimensions here but 2 indices were given}}
  let u = a[0][1, 2, 3];         // expected-error E0306 {{'a[0]' has 2 dimensions here but 3 indices were given}}
}
