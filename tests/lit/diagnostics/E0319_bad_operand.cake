// E0319: operands of the wrong kind for the operation.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: bf16[M, N], B: bf16[M, N] tma(box=[64, 64], swizzle=128B)) grid(M / BM) threads(128) {
  shared a: bf16[64, 64] swizzle(128B) align(1024);
  mbarrier full[2] arrivals(1);
  barrier epi id(1) threads(128);
  tma.load a <- A[0, 0] signal(full[0]);           // expected-error E0319 {{invalid operand for 'tma.load': 'A' has no tensor map: declare it with tma(box=[...])}}
  // expected-note@4 {{parameter 'A' is declared here}}
  wait full parity(0);                             // expected-error E0319 {{'full' is an array of 2 mbarriers; index it, e.g. full[s]}}
  wait epi parity(0);                              // expected-error E0319 {{'wait' takes an mbarrier; to wait at a named barrier write 'sync epi'}}
  sync full[0];                                    // expected-error E0319 {{'sync' takes a named barrier}}
  tma.load a <- B[0, 0 +: 8] signal(full[0]);      // expected-error E0319 {{the source must be a tensor element such as T[r0, c0]}}
}
