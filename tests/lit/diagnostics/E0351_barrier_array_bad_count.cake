// RUN: %cakec --verify-only --verify-diagnostics %s
// A named barrier array takes consecutive ids from id(..): two barriers from id 15 would need id 16.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {
  // expected-error@+1 E0351 {{invalid named barrier array 'epi': its 2 barriers take ids 15..16, outside 1..15}}
  barrier epi[2] id(15) threads(128);
}
