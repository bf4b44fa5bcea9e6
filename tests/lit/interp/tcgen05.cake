// tcgen05 on the interpreter: the epilogue warpgroup seeds the accumulator with tcgen05.st (100), one thread
// issues tcgen05.mma accumulate(true) from shared tiles (A = 1, B[n, k] = k % 4, K = 64: + 96) and commits to
// an mbarrier, the epilogue waits for it and reads the accumulator back with tcgen05.ld: every element 196.
// RUN: %cakec run %s --shape M=128,N=32 --outputs C=%t.c.npy --schedules 20 --seed 1 2>&1 | %FileCheck %s --check-prefix=STATS
// RUN: %python %S/Inputs/npy_tool.py print %t.c.npy | %FileCheck %s
// STATS-NOT: error
// STATS: cakec run: k: {{[0-9]+}} warp statements; 20 schedules (--seed 1 .. 20)
// CHECK: f4 (128, 32)
// CHECK-NEXT: 196.0
// CHECK-NEXT: 196.0
// The epilogue reads the accumulator without waiting for the commit: the MMA (an asynchronous operation of
// the issuing thread) is not ordered with the read.
// RUN: sed -e '/wait done parity(0);/d' %s > %t.early.cake
// RUN: %expect-exit 1 %cakec run %t.early.cake --shape M=128,N=32 2>&1 | %FileCheck %s --check-prefix=EARLY
// EARLY: error: data race on shared 'acc' element {{.*}}the tcgen05.mma issued by warp 0{{.*}} [E0912]
target sm_100a;

kernel k(C: f32[M, N] align(16)) requires(M == 128, N == 32) grid(1) threads(256) {
  shared a: bf16[128, 64] swizzle(128B) align(1024);
  shared b: bf16[32, 64] swizzle(128B) align(1024);
  tmem acc: f32[128, 32];
  mbarrier done arrivals(1);
  if tid.x == 0 {
    mbarrier.init done;
    fence.mbarrier_init;
  }
  if warp == 0 {
    tcgen05.alloc acc;
  }
  let t = i32(tid.x);
  for i in 0..32 unroll {
    let e = t * 32 + i;
    a[e / 64, e % 64] = bf16(1.0);
  }
  for i in 0..8 unroll {
    let e = t * 8 + i;
    b[e / 64, e % 64] = bf16(f32((e % 64) % 4));
  }
  fence.proxy_async;
  tcgen05.fence.before;
  syncthreads;
  tcgen05.fence.after;
  if warp >= 4 {
    var f: frag<tmem_acc, f32, 128, 32, 16> = 100.0;
    tcgen05.st acc <- f;
    tcgen05.wait.st;
  }
  tcgen05.fence.before;
  syncthreads;
  tcgen05.fence.after;
  role issue = warp(0) {
    elect {
      tcgen05.mma acc += a * b.T accumulate(true);
      tcgen05.commit done;
    }
  }
  role epilogue = warpgroup(1) {
    wait done parity(0);
    tcgen05.fence.after;
    var f: frag<tmem_acc, f32, 128, 32, 16>;
    tcgen05.ld f <- acc;
    tcgen05.wait.ld;
    store C[0, 0] <- f;
  }
  tcgen05.fence.before;
  syncthreads;
  tcgen05.fence.after;
  if warp == 0 {
    tcgen05.dealloc acc;
  }
}
