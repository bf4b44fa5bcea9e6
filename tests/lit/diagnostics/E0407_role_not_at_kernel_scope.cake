// E0407: roles nested in loops, conditionals or other roles.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N], n: i32) grid(M / BM) threads(256) {
  if n > 0 {
    role a = warpgroup(0) { }            // expected-error E0407 {{role 'a' must be declared directly in the kernel body}}
  }
  role b = warpgroup(1) {
    // expected-note@-1 {{inside role 'b' declared here}}
    role c = warp(4) { }                 // expected-error E0407 {{role 'c' must be declared directly in the kernel body}}
  }
}
