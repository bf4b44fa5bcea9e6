// RUN: %cakec --verify-only --verify-diagnostics %s
// A partial mask reached by the whole warp: lanes 16..31 execute bar.warp.sync without being in the mask.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(64) {
  // expected-error@+2 E0666 {{syncwarp(0x0000ffff) is executed by lanes outside its mask 0x0000ffff}}
  // expected-note@+1 {{no enclosing condition depends on the lane}}
  syncwarp(0x0000ffff);
}
