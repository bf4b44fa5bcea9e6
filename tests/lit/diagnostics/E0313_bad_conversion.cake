// E0313: conversions between types that have none.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  let v = A[0, 0 +: 4];
  let a = bf16x2(x);             // expected-error E0313 {{cannot convert f32 to bf16x2}}
  let b = f32(v);                // expected-error E0313 {{cannot convert f32x4 to f32}}
  let c = f16x8(v);              // expected-error E0313 {{cannot convert f32x4 to f16x8}}
  let p = pred(x);               // expected-error E0313 {{cannot convert f32 to pred}}
}
