// E0403: roles that share warps.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N]) grid(M / BM) threads(384) {
  role load = warpgroup(0) { }
  // expected-note@-1 {{role 'load' covers warps 0..4}}
  role math[2] = warps(2..10) { }      // expected-error E0403 {{role 'math' overlaps role 'load' on warp 2}}
}
