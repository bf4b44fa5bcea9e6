// E0405: roles on warps the block does not have.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N]) grid(M / BM) threads(256) {
  role load = warpgroup(0) { }
  role math[2] = warpgroups(1..3) { }    // expected-error E0405 {{role 'math' covers warps 4..12, but the block has 8 warps}}
}
