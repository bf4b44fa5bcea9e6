// RUN: %cakec --verify-only --verify-diagnostics %s
// The consumer warpgroups take 248 registers each, but the four warps outside any budgeted role still hold
// their launch allocation (at least 24 registers): setmaxnreg.inc can never be satisfied.
target sm_90a;
// expected-error@+1 E0649 {{the block needs at least 66560 registers, more than the 65536 of the r}}
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(384) {
  // expected-note@+1 {{role 'math': 8 warps x 32 x 248}}
  role math[2] = warpgroups(1..3) regs(248) {
  }
}
