// RUN: %cakec --verify-only --verify-diagnostics %s
// Every thread of the warpgroup writes part of the wgmma A operand tile with generic stores and fences them,
// but no barrier separates the stores from the wgmma: the warpgroup's wgmma may read rows that other warps
// have not written yet (a write-before-async-read race; the fix is `syncthreads;` after the fence).
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
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  wgmma.fence;
  wgmma acc += a * b.T;
  wgmma.commit;
  wgmma.wait 0;
  store C[i32(block.y) * 64, i32(block.x) * 64] <- acc;
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@17 E0658 {{'wgmma' reads shared 'a' through the async proxy, unordered with the write 'a[t / 2, (t % 2) * 8 + c]' by another thread}}
// expected-note@11 {{the write by thread 1 (warp 0, lane 1), c = 0}}
// expected-note@17 {{counterexample: thread 0 (warp 0, lane 0) issues the wgmma reading a[0 +: 64, 0 +: 16] while thread 1 (warp 0, lane 1), c = 0 writes a[0, 8]; no barrier both threads pass orders them (M = 64, N = 64)}}
// expected-note@11 {{no barrier (syncthreads) that both threads pass lies between this write and the wgmma}}
