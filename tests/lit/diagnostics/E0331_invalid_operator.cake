// E0331: operators applied to types they do not take.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  let n = 3;
  let a = x % 2.0;               // expected-error E0331 {{operator '%' cannot be applied to f32}}
  let b = !n;                    // expected-error E0331 {{operator '!' cannot be applied to i32}}
  let c = x << 1;                // expected-error E0331 {{operator '<<' cannot be applied to f32}}
  let d = (n < 2) + (n > 1);     // expected-error E0331 {{operator '+' cannot be applied to pred}}
  let e = ex2(n);                // expected-error E0331 {{operator 'ex2' cannot be applied to i32}}
  let f = warp.any(x);           // expected-error E0331 {{operator 'warp.any' cannot be applied to f32}}
  let g = tf32.rz(n);            // expected-error E0331 {{operator 'tf32.rz' cannot be applied to i32}}
}
