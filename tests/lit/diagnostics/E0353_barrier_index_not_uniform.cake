// RUN: %cakec --verify-only --verify-diagnostics %s
// The lanes of one warp would name different barriers: bar.sync takes one id per warp.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {
  barrier epi[2] id(1) threads(128);
  role math[2] = warps(0..8) {
    // expected-error@+2 E0353 {{the index of named barrier array 'epi' is not warp-uniform: 'lane % 2' differs between the lanes of a warp}}
    // expected-note@+1 {{this differs between the lanes of a warp}}
    sync epi[lane % 2];
  }
}
