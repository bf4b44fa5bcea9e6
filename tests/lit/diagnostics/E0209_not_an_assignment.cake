// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k() threads(32) {
  var x: f32 = 0.0;
  x + 1.0;          // expected-error E0209 {{expression result unused}}
  x == 2.0;         // expected-error E0209 {{expression result unused}}
}
