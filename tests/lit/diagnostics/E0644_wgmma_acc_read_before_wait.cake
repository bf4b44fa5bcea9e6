// RUN: %cakec --verify-only --verify-diagnostics %s
// The epilogue stores the accumulator without waiting for the wgmma group that writes it.
target sm_90a;
kernel k(C: f32[M, N] align(16)) requires(M % 64 == 0, N % 64 == 0) grid(N / 64, M / 64) threads(128) {
  shared a: bf16[64, 16] align(1024);
  shared b: bf16[64, 16] align(1024);
  let t = i32(tid.x);
  for c in 0..8 unroll {
    a[t / 2, (t % 2) * 8 + c] = bf16(0.0);
    b[t / 2, (t % 2) * 8 + c] = bf16(1.0);
  }
  fence.proxy_async;
  syncthreads;
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  wgmma.fence;
  // expected-note@+1 {{this wgmma writes 'acc' asynchronously}}
  wgmma acc += a * b.T;
  // expected-note@+1 {{its group is committed here; 0 group(s) were committed after it}}
  wgmma.commit;
  // expected-error@+1 E0644 {{store of accumulator 'acc' before a wgmma.wait that covers the wgmma w}}
  store C[i32(block.y) * 64, i32(block.x) * 64] <- acc;
}
