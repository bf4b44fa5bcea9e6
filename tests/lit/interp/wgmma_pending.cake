// The interpreter tracks the registers of pending wgmmas element range by element range: with two
// accumulators in a register array, the second may be reset and fed to its own wgmma (after a fence) while
// the first one's wgmma is still pending; chaining wgmmas into one accumulator needs no wait between them;
// wgmma.wait 1 retires all but the newest group.  Clean, and the values are the products (K = 16 ones: 16,
// then 16 + 2 * 16 = 48 in acc[0], 16 in acc[1], summed into C = 64).
// RUN: %cakec run %s --shape M=64,N=64 --outputs C=%t.c.npy
// RUN: %python %S/Inputs/npy_tool.py print %t.c.npy | %FileCheck %s
// CHECK: f4 (64, 64)
// CHECK-NEXT: 64
// Reading acc[0] while only its older group is retired but a newer wgmma on it is pending: E0916.
// RUN: %expect-exit 1 %cakec run %s --shape M=64,N=64 -D EARLY=1 2>&1 | %FileCheck %s --check-prefix=EARLY
// EARLY: error: 'acc' is read by warp {{[0-3]}} of block (0, 0, 0) while a wgmma that holds it is pending [E0916]
target sm_90a;

kernel k<EARLY = 0>(C: f32[M, N] align(16)) requires(M == 64, N == 64) grid(1) threads(128) {
  shared a: bf16[64, 16] align(1024);
  shared b: bf16[64, 16] align(1024);
  let t = i32(tid.x);
  for c in 0..8 unroll {
    a[t / 2, (t % 2) * 8 + c] = bf16(1.0);
    b[t / 2, (t % 2) * 8 + c] = bf16(1.0);
  }
  fence.proxy_async;
  syncthreads;
  var acc: frag<wgmma_acc, f32, 64, 64, 16>[2];
  acc[0] = 0.0;
  wgmma.fence;
  wgmma acc[0] += a * b.T;
  wgmma.commit;
  acc[1] = 0.0;                       // acc[0] is pending, acc[1] is not
  wgmma.fence;
  wgmma acc[1] += a * b.T;
  wgmma acc[0] += a * b.T;            // chained into the pending accumulator
  wgmma acc[0] += a * b.T;
  wgmma.commit;
  wgmma.wait 1;                       // the first group is retired; the second (acc[1], acc[0]) is pending
  if EARLY == 1 {
    store C[0, 0] <- acc[0];
  }
  wgmma.wait 0;
  store C[0, 0] <- acc[0] + acc[1];
}
