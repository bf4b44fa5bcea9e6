// E0329: dimensions that are not positive.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64, PAD = 0>(A: f32[M, N]) grid(M / BM) threads(128) {
  shared a: f32[BM, PAD];        // expected-error E0329 {{invalid dimension 'PAD': it is 0; dimensions must be positive}}
  var r: f32[BM - 65];           // expected-error E0329 {{invalid dimension 'BM - 65': it is -1; dimensions must be positive}}
  mbarrier m[0] arrivals(1);     // expected-error E0329 {{invalid dimension '0': an mbarrier array holds 1..1024 barriers, not 0}}
}
