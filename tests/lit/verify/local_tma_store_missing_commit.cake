// RUN: %cakec --verify-only --verify-diagnostics %s
// tma_copy without tma.store.commit: the store stays in the open bulk async-group, which tma.store.wait does
// not count, so the tile is cleared and the block may exit while TMA still reads the shared tile.
target sm_90;

kernel tma_copy<BM = 128, BN = 64>(
    In: bf16[M, N] tma(box=[BM, BN], swizzle=128B) align(16),
    Out: bf16[M, N] tma(box=[BM, BN], swizzle=128B) align(16))
  requires(M % BM == 0, N % BN == 0, BN * 2 == 128)
  grid(N / BN, M / BM) threads(32)
{
  shared tile: bf16[BM, BN] swizzle(128B) align(1024);
  mbarrier loaded arrivals(1);

  if lane == 0 {
    mbarrier.init loaded;
    fence.mbarrier_init;
  }
  syncthreads;

  let m0 = i32(block.y) * BM;
  let n0 = i32(block.x) * BN;
  elect {
    arrive loaded expect_tx(BM * BN * 2);
    tma.load tile <- In[m0, n0] signal(loaded);
    wait loaded parity(0);
    // expected-note@+2 {{the block reads 'tile' here; the read has not ended yet}}
    // expected-error@+1 E0653 {{tma.store from 'tile' is not committed by a tma.store.commit before the block exits}}
    tma.store Out[m0, n0] <- tile;
    tma.store.wait 0;
    // The write before the store's group is committed and retired is the ring-buffer family's E0609.
    // expected-error@+2 E0609 {{the block overwrites 'tile' while the block may still read it}}
    // expected-note@+1 {{counterexample: M = 128, N = 64}}
    tile[0, 0] = bf16(0.0);
  }
// expected-note@+1 {{with M = 128, N = 64, the block exits here}}
}
