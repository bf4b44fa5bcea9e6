// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k(A: f32[M]) threads(32) {
  var x: f32 = 1.0    // expected-error E0201 {{expected ';', found 'x'}}
  x = A[0];
  let y: f32 2.0;     // expected-error E0201 {{expected '=', found '2.0'}}
  x = ex2(x, 2.0;     // expected-error E0201 {{expected ')', found ';'}} expected-note {{to match this '('}}
  x = 1 x = 2;        // expected-error E0201 {{expected ';', found 'x'}}
  for i 0..4 { }      // expected-error E0201 {{expected 'in', found '0'}}
}
