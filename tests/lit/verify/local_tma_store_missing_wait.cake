// RUN: %cakec --verify-only --verify-diagnostics %s
// tma_copy without tma.store.wait: the elected thread clears the tile right after committing the store (the
// store may still read it), and the block exits with the store's group still pending.
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
    // expected-note@+2 {{this tma.store reads 'tile'}}
    // expected-note@+1 {{the block reads 'tile' here; the read has not ended yet}}
    tma.store Out[m0, n0] <- tile;
    // expected-note@+1 {{its bulk async-group is committed here (outside loops)}}
    tma.store.commit;
    // The write while the committed group is pending is the ring-buffer family's E0609 (reported once, not
    // again as E0654).
    // expected-error@+2 E0609 {{the block overwrites 'tile' while the block may still read it}}
    // expected-note@+1 {{counterexample: M = 128, N = 64}}
    tile[0, 0] = bf16(0.0);
  }
// expected-error@+2 E0654 {{the block exits while the tma.store from 'tile' may still be reading it}}
// expected-note@+1 {{with M = 128, N = 64, 1 bulk async-group(s) are pending here}}
}
