// RUN: %cakec --verify-only --verify-diagnostics %s
// A call statement must call an fn: an intrinsic's value would be dropped.
target sm_90a;
kernel k() threads(32) {
  var x: f32 = 0.0;
  ex2(x);           // expected-error E0209 {{expression result unused}}
}
