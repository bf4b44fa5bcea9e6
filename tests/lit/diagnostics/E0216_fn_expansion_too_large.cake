// E0216: a chain of fns that each call the next four times: 4^10 copies exceed the statement budget.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
fn f0(var x: f32) { x += 1.0; x += 1.0; x += 1.0; x += 1.0; x += 1.0; x += 1.0; x += 1.0; x += 1.0; }
fn f1(var x: f32) { f0(x); f0(x); f0(x); f0(x); }
fn f2(var x: f32) { f1(x); f1(x); f1(x); f1(x); }
fn f3(var x: f32) { f2(x); f2(x); f2(x); f2(x); }
fn f4(var x: f32) { f3(x); f3(x); f3(x); f3(x); }
fn f5(var x: f32) { f4(x); f4(x); f4(x); f4(x); }
fn f6(var x: f32) { f5(x); f5(x); f5(x); f5(x); }
fn f7(var x: f32) { f6(x); f6(x); f6(x); f6(x); }
fn f8(var x: f32) { f7(x); f7(x); f7(x); f7(x); }
fn f9(var x: f32) { f8(x); f8(x); f8(x); f8(x); }
fn f10(var x: f32) { f9(x); f9(x); f9(x); f9(x); }
kernel k() grid(1) threads(32) {
  var a: f32 = 0.0;
  f10(a);                        // expected-error E0216 {{inlining 'f10' here exceeds 100000 inlined statements}}
}
