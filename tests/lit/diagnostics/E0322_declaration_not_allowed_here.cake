// E0322: shared arrays and barriers are declared directly in the kernel body.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  for i in 0..4 {
    shared a: f32[32];           // expected-error E0322 {{shared array 'a' may only be declared directly in the kernel body}}
  }
  if x > 0.0 {
    mbarrier m arrivals(1);      // expected-error E0322 {{mbarrier 'm' may only be declared directly in the kernel body}}
  }
  role r = warpgroup(0) {
    // expected-note@-1 {{inside role 'r' declared here}}
    barrier b id(1) threads(64); // expected-error E0322 {{named barrier 'b' may only be declared directly in the kernel body}}
  }
}
