// RUN: %cakec --verify-only --verify-diagnostics %s
// The mask names lanes 0..15, but only lanes 0..7 get here: lanes 0..7 wait for lanes 8..15 forever.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(64) {
  // expected-note@+1 {{the lanes of the warp split here}}
  if lane < 8 {
    // expected-error@+1 E0667 {{the lanes that reach syncwarp(0x0000ffff) do not match its mask 0x0000ffff: in warp 0, lane 8 is in the mask but does not reach it (the lanes that reach it: 0x000000ff)}}
    syncwarp(0x0000ffff);
  }
}
