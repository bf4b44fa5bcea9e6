// E0330: slices that are not vectors or tiles where they are used.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  shared a: f32[2][16, 16];
  let v = A[0, 0 +: 3];          // expected-error E0330 {{invalid slice '0 +: 3': a vector slice takes 2, 4, 8 or 16 elements, not 3}}
  let t = A[0 +: 4, 0];          // expected-error E0330 {{invalid slice '0 +: 4': ':' and slices of outer dimensions select a tile}}
  let u = a[0 +: 1][0, 0];       // expected-error E0330 {{slices and ':' are allowed only in the last bracket group}}
  let w = A[0, :];               // expected-error E0330 {{invalid slice ':'}}
  let z = A[0, 0 +: 0];          // expected-error E0330 {{the length is 0; it must be positive}}
}
