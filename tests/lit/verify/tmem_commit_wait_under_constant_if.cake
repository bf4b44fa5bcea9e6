// The tensor-memory family (E0682) folds a compile-time condition: tmem_clean.cake with the epilogue's wait
// for the MMAs' commit inside `if W == 1` verifies for W = 1 (the branch is always taken) and is rejected for
// W = 0 (the branch never is).
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: verified
// RUN: %expect-exit 1 %cakec --verify-only -D W=0 %s 2>&1 | %FileCheck %s --check-prefix=NOWAIT
// NOWAIT: error: tcgen05.ld reads acc without waiting for the MMAs' tcgen05.commit [E0682]
target sm_100a;
kernel k<W = 1>(A: bf16[M, K] tma(box=[128, 64], swizzle=128B) align(16),
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
    if W == 1 {
      wait done parity(0);
    }
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
