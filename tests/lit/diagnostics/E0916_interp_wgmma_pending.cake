// E0916: the accumulator is stored before a wgmma.wait retires the wgmma that computes it (the interpreter
// computes the wgmma when it is issued, so the value it would store is the finished product - the GPU's is not).
// RUN: %expect-exit 1 %cakec run %s --shape M=64,N=64 2>&1 | %FileCheck %s
// CHECK: error: 'acc' is read by warp {{[0-3]}} of block (0, 0, 0) while a wgmma that holds it is pending [E0916]
// CHECK: note: the wgmma that holds it
// With the wait the kernel is clean.
// RUN: %cakec run %s --shape M=64,N=64 -D WAIT=1
target sm_90a;

kernel k<WAIT = 0>(C: f32[M, N] align(16)) requires(M == 64, N == 64) grid(1) threads(128) {
  shared a: bf16[64, 16] align(1024);
  shared b: bf16[64, 16] align(1024);
  let t = i32(tid.x);
  for c in 0..8 unroll {
    a[t / 2, (t % 2) * 8 + c] = bf16(1.0);
    b[t / 2, (t % 2) * 8 + c] = bf16(1.0);
  }
  fence.proxy_async;
  syncthreads;
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  wgmma.fence;
  wgmma acc += a * b.T;
  wgmma.commit;
  if WAIT == 1 {
    wgmma.wait 0;
  }
  store C[0, 0] <- acc;
}
