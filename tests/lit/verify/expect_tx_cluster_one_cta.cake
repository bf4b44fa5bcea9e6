// expect_tx counted for one CTA of a cluster: each of the 2 CTAs multicasts its half of the tile to
// both, so each CTA's barrier receives 2 copies, but expect_tx announces only one.
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
  if lane == 0 {
    mbarrier.init loaded;
    fence.mbarrier_init;
  }
  cluster.sync;

  let m0 = (i32(block.y) / 2) * 2 * BM;
  let n0 = i32(block.x) * BN;
  let r = i32(cluster.rank);
  elect {
    arrive loaded expect_tx(BM * BN * 2);
    tma.load half[r] <- In[m0 + r * BM, n0] signal(loaded) multicast(3);
    wait loaded parity(0);
    tma.store Out[m0 + r * BM, n0] <- half[r];
    tma.store.commit;
    tma.store.wait 0;
  }
  cluster.sync;
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@24 E0604 {{mbarrier 'CTA 0: loaded' phase 0 expects 8192 transaction bytes, but the copies that signal it deliver 16384}}
// expected-note@24 {{counterexample: M = 128, N = 64}}
// expected-note@25 {{this copy (8192 bytes, issued by CTA 0: the block) has not landed when phase 0 completes}}
// expected-note@13 {{barrier declared here}}
