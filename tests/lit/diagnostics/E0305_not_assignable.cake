// E0305: assignments to read-only names (let, parameters, loop variables, builtins).
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  let a = 1.0;
  // expected-note@-1 {{let binding 'a' is declared here}}
  a = 2.0;                       // expected-error E0305 {{cannot assign to let binding 'a'}}
  x = 1.0;                       // expected-error E0305 {{cannot assign to parameter 'x'}}
  for i in 0..4 {
    i = 2;                       // expected-error E0305 {{cannot assign to loop variable 'i'}}
  }
  tid.x = 0;                     // expected-error E0305 {{cannot assign to 'tid.x'}}
}
