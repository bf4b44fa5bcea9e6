// E0320: operations issued without a clause they need.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: bf16[M, N] tma(box=[64, 64], swizzle=128B)) grid(M / BM) threads(128) {
  shared a: bf16[64, 64] swizzle(128B) align(1024);
  mbarrier full arrivals(1);
  tma.load a <- A[0, 0];           // expected-error E0320 {{'tma.load' requires the clause 'signal(...)'}}
  wait full;                       // expected-error E0320 {{'wait' requires the clause 'parity(...)'}}
}
