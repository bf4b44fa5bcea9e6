// E0404: warpgroup-wide work (wgmma, setmaxnreg) in a role that is not made of whole warpgroups.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N]) grid(M / BM) threads(256) {
  role math = warps(2..6) regs(232) {    // expected-error E0404 {{'regs' (setmaxnreg) in role 'math' needs whole warpgroups, but the role covers warps 2..6}}
    wgmma.fence;                         // expected-error E0404 {{'wgmma.fence' in role 'math' needs whole warpgroups, but the role covers warps 2..6}}
  }
}
