// E0410: register budgets that setmaxnreg cannot give, or that overflow the register file.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N]) grid(M / BM) threads(384) {
  role load = warpgroup(0) regs(20) { }            // expected-error E0410 {{regs(20) is invalid: setmaxnreg takes a multiple of 8 in 24..256}}
  role math = warpgroups(1..3) regs(236) { }       // expected-error E0410 {{regs(236) is invalid: setmaxnreg takes a multiple of 8 in 24..256}}
}
kernel k2<BM = 64>(A: f32[M, N]) grid(M / BM) threads(384) {
  role load = warpgroup(0) regs(80) { }
  // expected-note@-1 {{role 'load': 4 warps x 32 x 80}}
  role math = warpgroups(1..3) regs(232) { }       // expected-error E0410 {{regs(232) is invalid: the roles' budgets need 69632 registers per block}}
}
