// E0340: atomics on element types PTX has no such atomic for (float min/max: the ordered-integer encoding).
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k(F: f32[N], B: bf16[N], X: i32[N]) grid(1) threads(32) {
  let i = i32(tid.x);
  let a = atom.min(F[i], 1.0);   // expected-error E0340 {{'atom.min' does not support f32}}
  red.max F[i], 2.0;             // expected-error E0340 {{'red.max' does not support f32}}
  red.and B[i], bf16(1.0);       // expected-error E0340 {{'red.and' does not support bf16}}
  let v = atom.add(X[0 +: 4], X[0 +: 4]);   // expected-error E0340 {{'atom.add' does not support i32x4}}
  let e = atom.exch(B[i], bf16(0.0));       // expected-error E0340 {{'atom.exch' does not support bf16}}
}
