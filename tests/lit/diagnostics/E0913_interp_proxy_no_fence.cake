// E0913: a tile written with ordinary stores is read by a TMA store after a barrier but without
// fence.proxy_async between the writes and the barrier.
// RUN: %expect-exit 1 %cakec run %s --shape M=64,N=64 2>&1 | %FileCheck %s
// CHECK: error: shared 't' element {{.*}} is read through the async proxy by the tma.store issued by warp 0 after a generic-proxy write by warp {{[01]}} without fence.proxy_async [E0913]
// With the fence the kernel is clean.
// RUN: %cakec run %s --shape M=64,N=64 -D FENCE=1
target sm_90;

kernel k<FENCE = 0>(Y: f32[M, N] tma(box=[64, 64]) align(16)) requires(M == 64, N == 64) grid(1) threads(64) {
  shared t: f32[64, 64] align(128);
  for r in 0..32 {
    t[r * 2 + warp, lane] = 1.0;
    t[r * 2 + warp, lane + 32] = 2.0;
  }
  if FENCE == 1 {
    fence.proxy_async;
  }
  syncthreads;
  if tid.x == 0 {
    tma.store Y[0, 0] <- t;
    tma.store.commit;
    tma.store.wait 0;
  }
}
