// E0406: role instances that do not divide the range evenly.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N]) grid(M / BM) threads(384) {
  role math[2] = warpgroups(0..3) { }    // expected-error E0406 {{role 'math[2]': warpgroups 0..3 (3 warpgroups) cannot be split into 2 equal instances}}
}
