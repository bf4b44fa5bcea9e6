// RUN: %cakec --verify-only --verify-diagnostics %s
// A TMA tensor without align(16), and a row pitch (N * 2 bytes) that is not a multiple of 16 for every N.
target sm_90;
// expected-error@+3 E0650 {{TMA tensor 'In': the base alignment is not stated; a tensor map needs }}
// expected-error@+2 E0650 {{TMA tensor 'In': the pitch of dimension 0 is not always a multiple of }}
// expected-note@+1 {{counterexample: M = 64, N = 1}}
kernel k<BM = 64, BN = 64>(In: bf16[M, N] tma(box=[BM, BN]))
  requires(M % BM == 0) grid(cdiv(N, BN), M / BM) threads(128)
{
  shared tile: bf16[BM, BN] align(128);
  mbarrier full arrivals(1);
  if tid.x == 0 {
    mbarrier.init full;
    fence.mbarrier_init;
  }
  syncthreads;
  if tid.x == 0 {
    arrive full expect_tx(BM * BN * 2);
    tma.load tile <- In[i32(block.y) * BM, i32(block.x) * BN] signal(full);
    wait full parity(0);
  }
}
