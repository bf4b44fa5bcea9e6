// E0703: a constant index outside a register array's dimension.
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  var acc: f32[2][4];
  for i in 0..5 unroll {
    acc[1][i] = X[i];   // expected-error E0703 {{index 4 is out of range for dimension of size 4 of 'acc'}}
  }
}
