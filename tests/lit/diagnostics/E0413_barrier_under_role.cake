// E0413: constructs the kernel's roles make invalid: block-wide barriers inside a role, ROLE members outside the role, warpgroup ops on a block that is not whole warpgroups.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N]) grid(M / BM) threads(256) {
  role load = warpgroup(0) {
    // expected-note@-1 {{role 'load' is declared here}}
    syncthreads;                 // expected-error E0413 {{'syncthreads' inside role 'load' is reached only by the role's warps}}
  }
  let i = load.index;            // expected-error E0413 {{'load.index' is defined only inside role 'load'}}
}
kernel k2<BM = 64>(A: f32[M, N]) grid(M / BM) threads(96) {
  wgmma.commit;                  // expected-error E0413 {{'wgmma.commit' outside any role runs on all 96 threads of the block}}
}
