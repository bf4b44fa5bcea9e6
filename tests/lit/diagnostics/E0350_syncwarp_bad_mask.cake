// RUN: %cakec --verify-only --verify-diagnostics %s
// syncwarp(MASK) takes a non-zero 32-bit constant lane mask.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(32) {
  // expected-error@+1 E0350 {{invalid syncwarp mask: the mask 0 names no lane}}
  syncwarp(0);
}
