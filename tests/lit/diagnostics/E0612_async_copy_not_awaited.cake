// E0612: a TMA copy into shared memory that nobody waits for: the block may exit while the copy still
// writes its shared memory.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90;

kernel k<BM = 128, BN = 64>(In: bf16[M, N] tma(box=[BM, BN], swizzle=128B) align(16))
  requires(M % BM == 0, N % BN == 0)
  grid(N / BN, M / BM) threads(32)
{
  shared tile: bf16[BM, BN] swizzle(128B) align(1024);
  mbarrier loaded arrivals(1);
  if lane == 0 {
    mbarrier.init loaded;
    fence.mbarrier_init;
  }
  syncthreads;
  elect {
    arrive loaded expect_tx(BM * BN * 2);
    tma.load tile <- In[i32(block.y) * BM, i32(block.x) * BN] signal(loaded);
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@19 E0612 {{tma.load by the block into 'tile' may still be in flight when the kernel exits}}
// expected-note@19 {{counterexample: M = 128, N = 64}}
