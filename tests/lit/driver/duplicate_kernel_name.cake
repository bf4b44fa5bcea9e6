// Two kernels with the same name are a redefinition (E0302) in sema, so --verify-only fails too; old cakec
// said "verified" and emitted two '.entry k' that only ptxas rejected.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {   // expected-note {{previous declaration of kernel 'k' is here}}
  X[0] = 1.0;
}

// expected-error@+1 E0302 {{redefinition of 'k'}}
kernel k(Y: f32[M]) grid(1) threads(32) {
  Y[0] = 2.0;
}
