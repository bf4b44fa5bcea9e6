// RUN: %cakec --verify-only --verify-diagnostics %s
// syncthreads under a thread-dependent condition: the threads with tid.x >= 64 never arrive (hang), and a
// named barrier inside elect counts one lane per warp.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(128) {
  shared s: f32[128];
  barrier b id(1) threads(128);
  // expected-note@+1 {{the condition 'tid.x < 64' depends on tid.x, which differs between the}}
  if tid.x < 64 {
    s[i32(tid.x)] = 1.0;
    // expected-error@+1 E0642 {{syncthreads is under divergent control: the condition is thread-varyin}}
    syncthreads;
  }
  // expected-note@+1 {{'elect' runs its body on one lane of each warp}}
  elect {
    // expected-error@+1 E0642 {{'sync b' is under divergent control: 'elect' runs its body on one lane}}
    sync b;
  }
}
