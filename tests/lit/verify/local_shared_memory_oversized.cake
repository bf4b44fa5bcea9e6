// RUN: %cakec --verify-only --verify-diagnostics %s
// Resource limits sema checks before the verifier runs: 4 stages of 64 KB exceed sm_90's 227 KB.
target sm_90;
// expected-error@+1 E0414 {{kernel 'k' needs 262144 bytes of shared memory; sm_90 allows at most 2}}
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(128) {
  // expected-note@+1 {{shared array 'big' takes 262144 bytes}}
  shared big: bf16[4][256, 128];
}
