// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s
// The correct counterparts of async_race_wgmma_operand_no_barrier.cake and async_race_tma_load_refill.cake:
// a barrier between the fenced generic stores and the wgmma, and a barrier between the last generic reads
// of a tile and the TMA load that refills it.  No async-proxy race may be reported.
// CHECK-NOT: E0658
// CHECK: verified: {{[0-9]+}} obligations proven
target sm_90a;
kernel wg(C: f32[M, N] align(16)) requires(M % 64 == 0, N % 64 == 0) grid(N / 64, M / 64) threads(128) {
  shared a: bf16[64, 16] swizzle(32B) align(1024);   // rows of one 32-byte swizzle span: wgmma can read it
  shared b: bf16[64, 16] swizzle(32B) align(1024);
  let t = i32(tid.x);
  for c in 0..8 unroll {
    a[t / 2, (t % 2) * 8 + c] = bf16(0.0);
    b[t / 2, (t % 2) * 8 + c] = bf16(1.0);
  }
  fence.proxy_async;
  syncthreads;
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  wgmma.fence;
  wgmma acc += a * b.T;
  wgmma.commit;
  wgmma.wait 0;
  store C[i32(block.y) * 64, i32(block.x) * 64] <- acc;
}

kernel ld<T = 64>(In: f32[N, T] tma(box=[1, T]) align(16), Out: f32[N, T] align(16))
  requires(N >= 1) grid(1) threads(T)
{
  shared tile: f32[1, T] align(128);
  mbarrier loaded arrivals(1);
  if tid.x == 0 {
    mbarrier.init loaded;
    fence.mbarrier_init;
  }
  syncthreads;
  let t = i32(tid.x);
  for kt in 0..N {
    syncthreads;
    if tid.x == 0 {
      arrive loaded expect_tx(T * 4);
      tma.load tile <- In[kt, 0] signal(loaded);
    }
    wait loaded parity(kt & 1);
    Out[kt, t] = tile[0, (t + 1) % T];
  }
}
