// tma_copy: Out = In for a bf16 matrix [M, N], one [BM, BN] tile per block, through shared memory with TMA.
// The smallest Hopper data-movement example: one mbarrier, one TMA load, one TMA store.
//
// Schedule
//   grid     (N / BN, M / BM) blocks of one warp; block (x, y) copies the tile at (y*BM, x*BN).
//   init     lane 0 initialises the mbarrier `loaded` (1 arrival per phase) and fences the init for the
//            async proxy; syncthreads publishes it.
//   copy     one elected lane: arrive.expect_tx(BM*BN*2 bytes) on `loaded`, TMA-load the tile into shared
//            (the copy's bytes complete the phase), wait for phase 0 (parity 0), TMA-store the tile, commit
//            the bulk group and wait for it: the block must not exit while the store still reads shared.
//   layout   both tensor maps and the shared tile use the 128-byte swizzle (BN * 2 = 128 bytes per row);
//            since load and store agree, the data lands in global unswizzled.  The tile needs 1024-byte
//            alignment (one swizzle atom).  The tile never passes through registers, so no proxy fence is
//            needed between the load and the store (both are async-proxy accesses ordered by the mbarrier).
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
    tma.store Out[m0, n0] <- tile;
    tma.store.commit;
    tma.store.wait 0;
  }
}
