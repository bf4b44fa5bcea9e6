// E0304: operands of different types; no implicit conversions between typed values.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  let i = 3;
  let y = x + i;                 // expected-error E0304 {{mismatched types f32 and i32 in '+'}}
  let z: i32 = x;                // expected-error E0304 {{mismatched types i32 and f32 in 'let z'}}
  var h: bf16 = 0.0;
  h = x;                         // expected-error E0304 {{mismatched types bf16 and f32 in '='}}
  let w = i + 1.5;               // expected-error E0304 {{mismatched types i32 and float constant in '+'}}
}
