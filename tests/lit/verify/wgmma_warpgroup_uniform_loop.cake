// RUN: %cakec --verify-only --verify-diagnostics %s
// The index of a role whose instances are whole warpgroups is the same in the 128 threads of each: a loop
// whose trip count depends on it runs the same number of times in every warp of a warpgroup, so wgmma may be
// issued in it (each warpgroup its own count).  A loop bound that differs between the warps of a warpgroup
// (`warp`) splits the warpgroup, and a named barrier of both warpgroups in the warpgroup-dependent loop is
// reached a different number of times by the two.
target sm_90a;
kernel k(C: f32[M, N] align(16)) requires(M % 64 == 0, N % 64 == 0) grid(N / 64, M / 64) threads(256) {
  shared a: bf16[64, 16] align(1024);
  shared b: bf16[64, 16] align(1024);
  barrier both id(1) threads(256);
  let t = i32(tid.x);
  for c in 0..4 unroll {
    a[t / 4, (t % 4) * 4 + c] = bf16(0.0);
    b[t / 4, (t % 4) * 4 + c] = bf16(1.0);
  }
  fence.proxy_async;
  syncthreads;
  role math[2] = warpgroups(0..2) {
    var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
    for it in math.index..3 {
      wgmma.fence;
      wgmma acc += a * b.T;
      wgmma.commit;
      wgmma.wait 0;
    }
    for it in 0..math.warp {
      // expected-error@+1 E0645 {{'wgmma.fence' must be executed by whole warpgroups together: the loop's trip count differs between the warps of a warpgroup}}
      wgmma.fence;
      // expected-error@+1 E0645 {{'wgmma' must be executed by whole warpgroups together: the loop's trip count differs between the warps of a warpgroup}}
      wgmma acc += a * b.T;
      // expected-error@+1 E0645 {{'wgmma.commit' must be executed by whole warpgroups together: the loop's trip count differs between the warps of a warpgroup}}
      wgmma.commit;
      // expected-error@+1 E0645 {{'wgmma.wait' must be executed by whole warpgroups together: the loop's trip count differs between the warps of a warpgroup}}
      wgmma.wait 0;
    }
    for it in math.index..2 {
      // expected-error@+1 E0642 {{'sync both' is under divergent control: the loop's trip count differs between threads}}
      sync both;
    }
    if math.index == 0 {
      store C[i32(block.y) * 64, i32(block.x) * 64] <- acc;
    }
  }
}
// expected-note@27 {{divergent construct here}}
// expected-note@27 {{divergent construct here}}
// expected-note@27 {{divergent construct here}}
// expected-note@27 {{divergent construct here}}
// expected-note@37 {{the loop's bound 'math.index' differs between threads}}
// The proxy-race family cannot tell which warps meet at the divergent barrier: unproven, not a crash.
// expected-error@8 E0601 {{a named barrier is reached by warps that cannot be determined}}
