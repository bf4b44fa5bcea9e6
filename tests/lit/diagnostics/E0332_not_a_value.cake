// E0332: barriers, roles and builtin namespaces used as values.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  mbarrier full[2] arrivals(1);
  let a = full[0];               // expected-error E0332 {{mbarrier 'full[0]' is not a value}}
  let b = tid + 1;               // expected-error E0332 {{builtin 'tid' is not a value}}
  role r = warpgroup(0) {
    let c = r;                   // expected-error E0332 {{role 'r' is not a value}}
  }
}
