// E0409: kernels without grid(...) or threads(...).
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N]) threads(128) {   // expected-error E0409 {{kernel 'k' has no grid(...) clause}}
}
kernel k2(A: f32[M]) grid(M) {                  // expected-error E0409 {{kernel 'k2' has no threads(...) clause}}
}
