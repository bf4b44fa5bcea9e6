// E0326: tiles, fragments and copies whose shapes disagree.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 128>(A: bf16[M, N] tma(box=[BM, 64], swizzle=128B)) grid(M / BM) threads(128) {
  shared a: bf16[64, 64] swizzle(128B) align(1024);
  shared b: bf16[128, 64] swizzle(128B) align(1024);
  shared c: bf16[64, 32];
  mbarrier full arrivals(1);
  tma.load a <- A[0, 0] signal(full);          // expected-error E0326 {{shape mismatch in 'tma.load': the shared tile 'a' is [64, 64] but the box of 'A' is [128, 64]}}
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  wgmma acc += a * b.T;                        // expected-error E0326 {{B has N = 128 but the accumulator has N = 64}}
  wgmma acc += a * c.T;                        // expected-error E0326 {{A has K = 64 but B has K = 32}}
  cp.async c[0, 0 +: 16] <- A[0, 0 +: 16];     // expected-error E0326 {{cp.async copies 4, 8 or 16 bytes, but bf16x16 is 32 bytes}}
}
