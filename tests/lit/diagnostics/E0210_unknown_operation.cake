// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k(A: bf16[M, K] tma(box=[64, 64], swizzle=128B)) threads(128) {
  shared a: bf16[64, 64] swizzle(128B);
  mbarrier full arrivals(1);
  tma.laod a <- A[0, 0] signal(full);   // expected-error E0210 {{unknown operation 'tma.laod'}}
  wgmma.wiat 0;                         // expected-error E0210 {{unknown operation 'wgmma.wiat'}}
  arive full;                           // expected-error E0210 {{unknown operation 'arive'}}
  syncthread;                           // expected-error E0210 {{unknown operation 'syncthread'}}
  cluster.frobnicate;                   // expected-error E0210 {{unknown operation 'cluster.frobnicate'}}
}
