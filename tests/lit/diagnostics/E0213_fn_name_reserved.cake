// E0213: fns named like an intrinsic, a type or a kernel.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
fn max(a: f32, b: f32) -> f32 {  // expected-error E0213 {{cannot declare fn 'max': 'max' is an intrinsic function}}
  return a;
}
fn bf16(a: f32) -> f32 {         // expected-error E0213 {{cannot declare fn 'bf16': 'bf16' is a type name}}
  return a;
}
fn k() {                         // expected-error E0213 {{cannot declare fn 'k': a kernel has that name}}
}
kernel k() grid(1) threads(32) {
}
