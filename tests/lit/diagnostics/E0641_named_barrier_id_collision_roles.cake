// RUN: %cakec --verify-only --verify-diagnostics %s
// Two roles each synchronise "their" epilogue on the same barrier id with a count of 128: either role alone
// fills it, so warps of one role can pass a phase the other role completed.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {
  // expected-note@+1 {{declared here with threads(128)}}
  barrier epi id(1) threads(128);
  role a = warps(0..4) {
    // expected-note@+1 {{role 'a' (warps 0..4, 128 threads) uses it here}}
    sync epi;
  }
  role b = warps(4..8) {
    // expected-error@+2 E0641 {{named barrier 'epi' (id 1) is used by role 'a' and by role 'b', and ea}}
    // expected-note@+1 {{role 'b' (warps 4..8, 128 threads) uses it here}}
    sync epi;
  }
}
