// RUN: %cakec --verify-only --verify-diagnostics %s
// E0654: tma.store.wait 1 right after the only commit leaves that group pending, so the block may exit while
// the TMA store still reads the shared tile.
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
    // expected-note@+1 {{this tma.store reads 'tile'}}
    tma.store Out[m0, n0] <- tile;
    // expected-note@+1 {{its bulk async-group is committed here (outside loops)}}
    tma.store.commit;
    // expected-note@+1 {{the last tma.store.wait leaves 1 group(s) pending}}
    tma.store.wait 1;
  }
// expected-error@+2 E0654 {{the block exits while the tma.store from 'tile' may still be reading it}}
// expected-note@+1 {{with M = 128, N = 64, 1 bulk async-group(s) are pending here}}
}
