// E0318: data movement whose operands are in the wrong memory.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: bf16[M, N] tma(box=[64, 64], swizzle=128B), C: bf16[M, N]) grid(M / BM) threads(128) {
  shared a: bf16[64, 64] swizzle(128B) align(1024);
  mbarrier full arrivals(1);
  var r: bf16x8;
  cp.async r <- A[0, 0 +: 8];                      // expected-error E0318 {{the destination of 'cp.async' must be in shared memory, but 'r' is in register memory}}
  cp.async a[0, 0 +: 8] <- a[1, 0 +: 8];           // expected-error E0318 {{the source of 'cp.async' must be in global memory, but 'a[1, 0 +: 8]' is in shared memory}}
  tma.load a <- a[0, 0] signal(full);              // expected-error E0318 {{the tensor of 'tma.load' must be in global memory, but 'a[0, 0]' is in shared memory}}
}
