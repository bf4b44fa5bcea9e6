// E0314 for tf32 fragments: tf32 inputs exist only as m16n8k8 mma_a / mma_b, accumulated in an f32 mma_c;
// every refusal carries a hint naming the legal tf32 fragment types.
// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: %expect-exit 1 %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: 12:10: error: invalid fragment type: mma.sync with tf32 inputs has shape m16n8k8, not m16n8k16 [E0314]
// CHECK: hint: tf32 fragments are frag<mma_a, tf32, 16, 8, 8> and frag<mma_b, tf32, 16, 8, 8>, accumulated in frag<mma_c, f32, 16, 8, 8>
// CHECK: 16:10: error: invalid fragment type: mma.sync inputs (mma_a) are bf16, f16 or tf32 (m16n8k8), not f32 [E0314]
// CHECK: hint: for f32 data use tf32 inputs: frag<mma_a, tf32, 16, 8, 8> (each element write rounds to tf32)
target sm_90a;
kernel k() grid(1) threads(128) {
  // tf32 with k16
  var a: frag<mma_a, tf32, 16, 8, 16>;      // expected-error E0314 {{mma.sync with tf32 inputs has shape m16n8k8, not m16n8k16}}
  var b: frag<mma_b, tf32, 16, 8, 16>;      // expected-error E0314 {{mma.sync with tf32 inputs has shape m16n8k8, not m16n8k16}}
  var c: frag<mma_c, tf32, 16, 8, 8>;       // expected-error E0314 {{mma_c accumulates tf32 products in f32: frag<mma_c, f32, 16, 8, 8>, not tf32}}
  var d: frag<wgmma_a, tf32, 64, 64, 8>;    // expected-error E0314 {{wgmma_a fragments do not hold tf32}}
  var e: frag<mma_a, f32, 16, 8, 8>;        // expected-error E0314 {{mma.sync inputs (mma_a) are bf16, f16 or tf32 (m16n8k8), not f32}}
  var f: frag<mma_row, tf32, 16>;           // expected-error E0314 {{mma_row fragments do not hold tf32}}
}
