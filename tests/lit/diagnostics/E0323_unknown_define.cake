// E0323: a -D that names no compile-time parameter of any kernel of the module.
// RUN: %cakec --verify-only --verify-diagnostics -D BK=32 -D BN=128 %s
target sm_80;
kernel k<BM = 64, BN = 64>(A: f32[M, N]) grid(M / BM) threads(128) {   // expected-error E0323 {{-D BK: kernel 'k' has no compile-time parameter 'BK'}}
}
