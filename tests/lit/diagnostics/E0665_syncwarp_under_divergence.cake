// RUN: %cakec --verify-only --verify-diagnostics %s
// A full-mask syncwarp that only lanes 0..15 reach: lanes 16..31 never arrive.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(64) {
  // expected-note@+1 {{the lanes of the warp split here}}
  if lane < 16 {
    // expected-error@+1 E0665 {{syncwarp is under lane-divergent control: in warp 0, lane 16 is in the mask but does not reach it (the lanes that reach it: 0x0000ffff)}}
    syncwarp;
  }
}
