// E0347: arguments that name something other than the storage the parameter needs, found by sema at
// the call site: a let for a var parameter, a var for a shared parameter.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
fn bump(var x: f32) {                // expected-note {{the parameter is declared here}}
  x += 1.0;
}
fn clear(shared t: f32[32]) {        // expected-note {{the parameter is declared here}}
  t[lane] = 0.0;
}
kernel k() grid(1) threads(32) {
  var r: f32[32];
  let b = 2.0;                       // expected-note {{let binding 'b' is declared here}}
  bump(b);                           // expected-error E0347 {{the argument for var parameter 'x' of 'bump' must be a var local or an element of one}}
  // The body's assignment then reports the same argument (E0305).
  // expected-error@-2 E0305 {{cannot assign to let binding 'b'}}
  clear(r);                          // expected-error E0347 {{the argument for shared parameter 't' of 'clear' must be a shared array or a stage of one}}
}
