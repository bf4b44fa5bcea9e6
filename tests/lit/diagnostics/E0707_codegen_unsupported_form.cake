// E0707: a form sema accepts but code generation has no lowering for is reported, not mis-compiled.
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_80;

kernel k(X: f32[N] align(16)) grid(1) threads(32) {
  let v = X[0 +: 4];
  X[4 +: 4] = fma(v, v, v);   // expected-error E0707 {{code generation cannot lower fma on vectors}}
}
