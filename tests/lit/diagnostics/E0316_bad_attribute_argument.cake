// E0316: attributes with arguments of the wrong form or value.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: bf16[M, N] tma(box=[BM, 512]) align(3)) requires(BM == 128) grid(M / BM) threads(128) {
  // expected-error@-1 E0316 {{invalid argument to 'tma': box dimension 512 is outside 1..256}}
  // expected-error@-2 E0316 {{invalid argument to 'align': the alignment must be a power of two}}
  // expected-error@-3 E0316 {{invalid argument to 'requires': 'BM == 128' is false for the compile-time parameters (BM = 64)}}
  shared a: bf16[4, 32] swizzle(100B);      // expected-error E0316 {{invalid argument to 'swizzle': the swizzle mode is 32B, 64B, 128B or none, not 100B}}
  shared b: bf16[4, 64] swizzle(128B) align(128);  // expected-error E0316 {{align(128) is less than the 1024 bytes that swizzle(128B) needs}}
  barrier epi id(16) threads(64);           // expected-error E0316 {{named barrier ids are 1..15, not 16}}
  barrier epi2 id(1) threads(48);           // expected-error E0316 {{a named barrier's thread count is a multiple of 32 in 32..128, not 48}}
}
