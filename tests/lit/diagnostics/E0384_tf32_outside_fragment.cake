// E0384: tf32 is the element type of mma.sync A/B fragments only; as a scalar, vector, tensor or shared
// element type it is refused with a hint to keep the data f32.
// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: %expect-exit 1 %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: 8:13: error: 'tf32' is not a value type: tf32 is the element type of mma.sync A and B fragments only [E0384]
// CHECK: hint: declare the data as f32 and the operand as frag<mma_a, tf32, 16, 8, 8> (or mma_b); writing an element rounds it to tf32
target sm_80;
kernel k(A: tf32[M, K]) grid(1) threads(32) {   // expected-error E0384 {{'tf32' is not a value type}}
  shared s: tf32[16, 8];                        // expected-error E0384 {{'tf32' is not a value type}}
  var v: tf32x4;                                // expected-error E0384 {{'tf32x4' is not a value type}}
  let x: tf32 = 1.0;                            // expected-error E0384 {{'tf32' is not a value type}}
}
