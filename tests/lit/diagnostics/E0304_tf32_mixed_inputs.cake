// mma.sync with tf32 inputs: both operands tf32 (E0304 with a hint when mixed with bf16), an f32 accumulator,
// and no whole-fragment arithmetic or conversion on tf32 fragments (E0331, E0313: their elements are f32); an f16 accumulator is E0319.
// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: %expect-exit 1 %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: 16:19: error: mismatched types tf32 and bf16 in 'mma.sync' [E0304]
// CHECK: hint: tf32 multiplies only tf32: declare both operands frag<mma_a|mma_b, tf32, 16, 8, 8>
target sm_80;
kernel k() grid(1) threads(32) {
  var acc: frag<mma_c, f32, 16, 8, 8> = 0.0;
  var hacc: frag<mma_c, f16, 16, 8, 8> = 0.0;
  var a: frag<mma_a, tf32, 16, 8, 8> = 0.0;
  var b: frag<mma_b, tf32, 16, 8, 8> = 0.0;
  var bb: frag<mma_b, bf16, 16, 8, 8> = 0.0;
  var ab: frag<mma_a, bf16, 16, 8, 8> = 0.0;
  // tf32 mixed with bf16
  mma.sync acc += a * bb;         // expected-error E0304 {{mismatched types tf32 and bf16 in 'mma.sync'}}
  mma.sync acc += ab * b;         // expected-error E0304 {{mismatched types bf16 and tf32 in 'mma.sync'}}
  mma.sync hacc += a * b;         // expected-error E0319 {{tf32 inputs accumulate in f32, not f16}}
  let c = a * 2.0;                // expected-error E0331 {{operator '*' cannot be applied to frag<mma_a, tf32, 16, 8, 8>}}
  let d = f32(b);                 // expected-error E0313 {{cannot convert frag<mma_b, tf32, 16, 8, 8> to f32}}
  let m = max(a, 0.0);            // expected-error E0331 {{operator 'max' cannot be applied to frag<mma_a, tf32, 16, 8, 8>}}
  let x: f32 = a[1] * 2.0;
  a[3] = x + a[0];
  mma.sync acc += a * b;
}
