// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k() threads(32) {
  var x: f32 = 1e999;      // expected-error E0106 {{float literal '1e999' is out of range}}
  var y: f32 = 1.0e-999;   // expected-error E0106 {{float literal '1.0e-999' is out of range}}
}
