// E0357: tensor maps have rank 1 to 5.
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_90a;

kernel k(X: bf16[A, B, C, D, E, 64] tma(box=[1, 1, 1, 1, 8, 64], swizzle=128B) align(16)) grid(1) threads(128) {   // expected-error E0357 {{TMA tensor 'X' has rank 6; tensor maps have 1 to 5 dims}}
}
