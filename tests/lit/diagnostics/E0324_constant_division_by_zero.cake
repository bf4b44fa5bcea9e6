// E0324: a compile-time expression divides by zero (here after a -D override).
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64, W = 0>(A: f32[M, N]) grid(M / BM) threads(128) {
  shared a: f32[BM / W];         // expected-error E0324 {{division by zero in constant expression}}
  shared b: f32[BM % (W * 2)];   // expected-error E0324 {{division by zero in constant expression}}
}
