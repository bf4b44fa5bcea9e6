// RUN: %cakec --verify-only --verify-diagnostics %s
// Two 64x256 f32 accumulators (128 registers each) in a consumer role whose setmaxnreg budget is 240.
target sm_90a;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {
  role load = warpgroup(0) regs(40) {
  }
  // expected-error@+1 E0648 {{role 'math' needs at least 256 registers per thread for its register v}}
  role math = warpgroup(1) regs(240) {
    // expected-note@+1 {{'acc' holds 128 registers per thread}}
    var acc: frag<wgmma_acc, f32, 64, 256, 16> = 0.0;
    // expected-note@+1 {{'acc2' holds 128 registers per thread}}
    var acc2: frag<wgmma_acc, f32, 64, 256, 16> = 0.0;
    X[0] = acc[0] + acc2[0];
  }
}
