// RUN: %cakec --verify-only --verify-diagnostics %s
// E0682: the epilogue reads the accumulator without waiting for the MMAs' tcgen05.commit (fixed twin: tmem_clean.cake).
target sm_100a;
kernel k(A: bf16[M, K] tma(box=[128, 64], swizzle=128B) align(16),
         B: bf16[N, K] tma(box=[64, 64], swizzle=128B) align(16),
         C: f32[M, N] align(16))
  requires(M % 128 == 0, N % 64 == 0, K == 64)
  grid(M / 128, N / 64) threads(256)
{
  shared a: bf16[128, 64] swizzle(128B) align(1024);
  shared b: bf16[64, 64] swizzle(128B) align(1024);
  tmem acc: f32[128, 64];
  mbarrier loaded arrivals(1);
  mbarrier done arrivals(1);
  if tid.x == 0 {
    mbarrier.init loaded;
    mbarrier.init done;
    fence.mbarrier_init;
  }
  if warp == 0 {
    tcgen05.alloc acc;
  }
  tcgen05.fence.before;
  syncthreads;
  tcgen05.fence.after;
  let m0 = i32(block.x) * 128;
  let n0 = i32(block.y) * 64;
  role issue = warp(0) {
    elect {
      arrive loaded expect_tx((128 + 64) * 64 * 2);
      tma.load a <- A[m0, 0] signal(loaded);
      tma.load b <- B[n0, 0] signal(loaded);
      wait loaded parity(0);
      tcgen05.fence.after;
      tcgen05.mma acc += a * b.T accumulate(false);
      tcgen05.commit done;
    }
  }
  role epilogue = warpgroup(1) {
    tcgen05.fence.after;
    var f: frag<tmem_acc, f32, 128, 64, 16>;
    tcgen05.ld f <- acc;
    tcgen05.wait.ld;
    store C[m0, n0] <- f;
  }
  tcgen05.fence.before;
  syncthreads;
  tcgen05.fence.after;
  if warp == 0 {
    tcgen05.dealloc acc;
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@42 E0682 {{tcgen05.ld reads acc without waiting for the MMAs' tcgen05.commit}}
