// E0328: declarations without an attribute they need.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N]) grid(M / BM) threads(128) {
  mbarrier full[2];              // expected-error E0328 {{mbarrier 'full' requires the attribute 'arrivals(...)'}}
  barrier epi threads(64);       // expected-error E0328 {{named barrier 'epi' requires the attribute 'id(...)'}}
  barrier epi2 id(2);            // expected-error E0328 {{named barrier 'epi2' requires the attribute 'threads(...)'}}
}
