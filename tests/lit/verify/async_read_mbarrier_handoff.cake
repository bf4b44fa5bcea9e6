// A producer warpgroup fills a tile with plain stores, fences them for the async proxy and arrives on an
// mbarrier; the consumer waits on it and reads the tile with wgmma.  The hand-off is the sync simulation's
// (no E0658 for the pair); the same kernel with the arrive before the stores reads the tile before it is
// filled (E0610), and without the consumer's wait as well (E0610 and, nothing ordering the pair, E0658).
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s --check-prefix=CLEAN
// CLEAN: verified
// RUN: sed -e '/^    fence.proxy_async;/d' -e '/^    arrive full;  \/\/ filled/d' -e 's|^\(  role load = warpgroup(1) {\)$|\1 arrive full;|' %s > %t.early.cake
// RUN: not %cakec --verify-only %t.early.cake 2>&1 | %FileCheck %s --check-prefix=EARLY
// EARLY: math reads 't' before it has observed the write that fills it [E0610]
// RUN: sed -e '/wait full parity(0);/d' %s > %t.nowait.cake
// RUN: not %cakec --verify-only %t.nowait.cake 2>&1 | %FileCheck %s --check-prefix=NOWAIT
// NOWAIT: math reads 't' before it has observed the write that fills it [E0610]
// NOWAIT: 'wgmma' reads shared 't' through the async proxy, unordered with the write 't[r, c]' by another thread [E0658]
target sm_90a;
kernel k(A: bf16[64, 64], B: bf16[64, 64] tma(box=[64, 64], swizzle=128B) align(16), C: f32[64, 64] align(16))
  grid(1) threads(256)
{
  shared t: bf16[64, 64] swizzle(128B) align(1024);
  shared b: bf16[64, 64] swizzle(128B) align(1024);
  mbarrier full arrivals(128);
  mbarrier bl arrivals(1);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init bl;
    fence.mbarrier_init;
  }
  syncthreads;
  role load = warpgroup(1) {
    for v in 0..32 unroll {
      let r = load.warp + 4 * (v / 2);
      let c = lane + 32 * (v % 2);
      t[r, c] = A[r, c];
    }
    fence.proxy_async;
    arrive full;  // filled
  }
  role math = warpgroup(0) {
    if math.thread == 0 {
      arrive bl expect_tx(8192);
      tma.load b <- B[0, 0] signal(bl);
    }
    wait bl parity(0);
    wait full parity(0);
    var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
    wgmma.fence;
    wgmma acc += t * b.T;
    wgmma.commit;
    wgmma.wait 0;
    store C[0, 0] <- acc;
  }
}
