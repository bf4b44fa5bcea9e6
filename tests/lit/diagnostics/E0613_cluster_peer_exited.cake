// E0613: a CTA of a cluster arrives on a barrier in its peer's shared memory, and nothing orders that before
// the peer's exit (no final cluster.sync, and the peer never waits for the arrival): the peer may have exited
// and released its shared memory by then.  The multicast copies are fine: each CTA waits for both halves.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;

kernel mc<BM = 64, BN = 64>(
    In: bf16[M, N] tma(box=[BM, BN], swizzle=128B) align(16),
    Out: bf16[M, N] tma(box=[BM, BN], swizzle=128B) align(16))
  requires(M % (2 * BM) == 0, N % BN == 0)
  grid(N / BN, M / BM) cluster(1, 2) threads(32)
{
  shared half: bf16[2][BM, BN] swizzle(128B) align(1024);
  mbarrier loaded arrivals(1);
  mbarrier freed arrivals(1);
  if lane == 0 {
    mbarrier.init loaded;
    mbarrier.init freed;
    fence.mbarrier_init;
  }
  cluster.sync;

  let m0 = (i32(block.y) / 2) * 2 * BM;
  let n0 = i32(block.x) * BN;
  let r = i32(cluster.rank);
  elect {
    arrive loaded expect_tx(2 * BM * BN * 2);
    tma.load half[r] <- In[m0 + r * BM, n0] signal(loaded) multicast(3);
    wait loaded parity(0);
    tma.store Out[m0 + r * BM, n0] <- half[r];
    tma.store.commit;
    tma.store.wait 0;
    arrive freed cta(1 - r);   // "done with the half you sent me" - but the peer never waits for it
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@33 E0613 {{CTA 0: the block arrives on 'CTA 1: freed' after CTA 1 may have exited}}
// expected-note@33 {{counterexample: M = 128, N = 64}}
// expected-note@33 {{CTA 1: the block may finish after its last synchronisation here without having observed the access}}
