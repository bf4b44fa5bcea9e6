// E0342: the target of an atomic is not an element of a global or shared tensor.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k(X: i32[N]) grid(1) threads(32) {
  var r: i32[4] = 0;
  var x: i32 = 0;
  let a = atom.add(x, 1);        // expected-error E0342 {{the target of 'atom.add' must be an element of a global or shared tensor, found i32 'x'}}
  red.add r[1], 2;               // expected-error E0342 {{found the register array element 'r[1]'}}
  let b = atom.cas(X[0] + 1, 0, 1);   // expected-error E0342 {{the target of 'atom.cas' must be an element}}
}
