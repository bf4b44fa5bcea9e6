// RUN: %cakec --verify-only --verify-diagnostics %s
// Threads write the output tile with ordinary shared stores and hand it to TMA without fence.proxy_async:
// the async proxy may read stale shared memory.
target sm_90;
kernel k<BM = 64, BN = 64>(Out: bf16[M, N] tma(box=[BM, BN], swizzle=128B) align(16))
  requires(M % BM == 0, N % BN == 0) grid(N / BN, M / BM) threads(128)
{
  shared tile: bf16[BM, BN] swizzle(128B) align(1024);
  let t = i32(tid.x);
  for r in 0..BM / 2 {
    // expected-note@+1 {{generic-proxy write to 'tile' here}}
    tile[r * 2 + t / 64, t % 64] = bf16(0.0);
  }
  syncthreads;
  if tid.x == 0 {
    // expected-error@+1 E0646 {{'tma.store' reads shared array 'tile' through the async proxy after ge}}
    tma.store Out[i32(block.y) * BM, i32(block.x) * BN] <- tile;
    tma.store.commit;
    tma.store.wait 0;
  }
}
