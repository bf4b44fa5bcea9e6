// RUN: %cakec --verify-only --verify-diagnostics %s
// E0658: a tma.store (async-proxy read of the staging tile, issued by thread 0) after generic stores of all
// threads with fence.proxy_async but no barrier: thread 0 may copy rows the other warps have not written.
target sm_90;
kernel k(Out: f32[M, 64] tma(box=[1, 64]) align(16)) requires(M >= 1) grid(M) threads(64) {
  shared row: f32[1, 64] align(128);
  let t = i32(tid.x);
  // expected-note@+2 {{the write by thread}}
  // expected-note@+1 {{no barrier (syncthreads) that both threads pass lies between this write and the tma.store}}
  row[0, t] = f32(t);
  fence.proxy_async;
  if tid.x == 0 {
    // expected-error@+2 E0658 {{'tma.store' reads shared 'row' through the async proxy, unordered with the write 'row[0, t]' by another thread}}
    // expected-note@+1 {{counterexample: thread 0 (warp 0, lane 0) issues the tma.store reading row[0, 0 +: 64] while thread}}
    tma.store Out[i32(block.x), 0] <- row;
    tma.store.commit;
    tma.store.wait 0;
  }
}
