// E0411: an attribute or clause given twice.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N]) grid(M / BM) threads(128) threads(256) {
  // expected-error@-1 E0411 {{duplicate 'threads' clause}}
  // expected-note@-2 {{previous 'threads' is here}}
  mbarrier full arrivals(1);
  wait full parity(0) parity(1);   // expected-error E0411 {{duplicate 'parity' clause}}
  // expected-note@-1 {{previous 'parity' is here}}
}
