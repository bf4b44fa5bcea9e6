// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k() threads(32) {
  var x: f32 = 0.0;
  ) ;          // expected-error E0204 {{expected a statement, found ')'}}
  -x = 1.0;    // expected-error E0204 {{expected a statement, found '-'}}
  x = 2.0;
}
