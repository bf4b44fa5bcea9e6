// RUN: %cakec --verify-only --verify-diagnostics %s
// Threads past the end return early, then the survivors wait at syncthreads for threads that left.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(cdiv(N, 128)) threads(128) {
  shared s: f32[128];
  let i = i32(block.x) * 128 + i32(tid.x);
  if i >= N {
    // expected-note@+2 {{this return is taken by some threads only; they never arrive}}
    // expected-note@+1 {{this return is taken by some threads only; they never arrive}}
    return;
  }
  s[i32(tid.x)] = X[i];
  // expected-error@+1 E0642 {{syncthreads is under divergent control: some threads may have left the}}
  syncthreads;
  if warp == 0 {
    // expected-error@+1 E0642 {{syncthreads is under divergent control: some threads may have left the}}
    syncthreads;
  }
}
