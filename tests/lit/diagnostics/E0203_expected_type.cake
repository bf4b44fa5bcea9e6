// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k(A: [M], B: f32[M]) threads(32) {   // expected-error E0203 {{expected a type, found '['}}
  var x: 3;                                 // expected-error E0203 {{expected a type, found '3'}}
}
