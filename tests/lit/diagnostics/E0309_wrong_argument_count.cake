// E0309: intrinsics and conversions called with the wrong number of arguments.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  let a = max(x);                // expected-error E0309 {{'max' takes 2 argument(s), 1 given}}
  let b = fma(x, x);             // expected-error E0309 {{'fma' takes 3 argument(s), 2 given}}
  let c = f32(x, x);             // expected-error E0309 {{'f32' takes 1 argument(s), 2 given}}
  let d = bf16x2(x, x, x);       // expected-error E0309 {{'bf16x2' takes 1 or 2 argument(s), 3 given}}
}
