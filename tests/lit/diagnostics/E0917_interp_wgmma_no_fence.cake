// E0917: the accumulator is rescaled between two wgmmas without a wgmma.fence between the rescale and the
// second wgmma.
// RUN: %expect-exit 1 %cakec run %s --shape M=64,N=64 2>&1 | %FileCheck %s
// CHECK: error: a wgmma reads 'acc' in warp {{[0-3]}} of block (0, 0, 0), written by other instructions since the last wgmma.fence [E0917]
// CHECK: note: 'acc' written here
// With the fence the kernel is clean.
// RUN: %cakec run %s --shape M=64,N=64 -D FENCE=1
target sm_90a;

kernel k<FENCE = 0>(C: f32[M, N] align(16)) requires(M == 64, N == 64) grid(1) threads(128) {
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
  wgmma.wait 0;
  acc = acc * 0.5;
  if FENCE == 1 {
    wgmma.fence;
  }
  wgmma acc += a * b.T;
  wgmma.commit;
  wgmma.wait 0;
  store C[0, 0] <- acc;
}
