// RUN: %cakec --verify-only --verify-diagnostics %s
// Only warps 0 and 1 of the warpgroup issue the wgmma: warpgroup instructions need all four warps.
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
  // expected-note@+1 {{this condition selects warps}}
  if warp < 2 {
    // expected-error@+1 E0645 {{'wgmma' must be executed by whole warpgroups together: only warps 0..2}}
    wgmma acc += a * b.T;
  }
  wgmma.commit;
  wgmma.wait 0;
  store C[i32(block.y) * 64, i32(block.x) * 64] <- acc;
}
