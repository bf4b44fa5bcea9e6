// E0401: a target that is not one of the known architectures.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_75;   // expected-error E0401 {{unknown target 'sm_75'}}
kernel k<BM = 64>(A: f32[M, N]) grid(M / BM) threads(128) {
}
