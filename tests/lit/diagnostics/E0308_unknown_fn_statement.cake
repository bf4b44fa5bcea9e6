// E0308: a call statement whose name is neither an fn nor an intrinsic (a misspelt fn gets a suggestion).
// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: hint: did you mean the fn 'take_min'?
target sm_90a;
fn take_min(var best: f32, v: f32) {
  best = min(best, v);
}
kernel k() threads(32) {
  var x: f32 = 0.0;
  take_mim(x, 1.0);   // expected-error E0308 {{unknown function 'take_mim'}}
  frobnicate(x);      // expected-error E0308 {{unknown function 'frobnicate'}}
}
