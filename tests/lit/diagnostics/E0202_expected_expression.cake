// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k() threads(32) {
  var x: f32 = ;        // expected-error E0202 {{expected an expression, found ';'}}
  let y = 1 + * 2;      // expected-error E0202 {{expected an expression, found '*'}}
  if { }                // expected-error E0202 {{expected an expression, found '{'}}
}
