// E0301: a name that is declared nowhere; a close visible name is suggested.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  var accum: f32 = 0.0;
  acum += x;                     // expected-error E0301 {{use of undeclared name 'acum'}}
  accum += y * 2.0;              // expected-error E0301 {{use of undeclared name 'y'}}
  let i = threadIdx + 1;         // expected-error E0301 {{use of undeclared name 'threadIdx'}}
}
