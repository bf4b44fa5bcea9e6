// RUN: %cakec --verify-only --verify-diagnostics %s
// A block-reduction scratch array sized for 8 warps, indexed by warp in a 512-thread block.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(512) {
  shared sums: f32[8];
  if lane == 0 {
    // expected-error@+2 E0652 {{store 'sums[warp]' may be out of bounds: index 'warp' of dimension 0 c}}
    // expected-note@+1 {{counterexample: N = 1, tid.x = 256, warp = 8, lane = 0: sums[8] is pas}}
    sums[warp] = 1.0;
  }
}
