// E0315: attributes a construct does not accept.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N] swizle(128B), x: f32 align(4)) grid(M / BM) threads(128) blocks(2) {
  // expected-error@-1 E0315 {{unknown attribute 'swizle' on tensor parameter 'A'}}
  // expected-error@-2 E0315 {{unknown attribute 'align' on scalar parameter 'x'}}
  // expected-error@-3 E0315 {{unknown attribute 'blocks' on kernel 'k'}}
  shared a: f32[4, 32] aling(16);           // expected-error E0315 {{unknown attribute 'aling' on shared array 'a'}}
  mbarrier full[2] arrivals(1) count(2);    // expected-error E0315 {{unknown attribute 'count' on mbarrier 'full'}}
}
