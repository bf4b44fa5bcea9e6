// RUN: %cakec --verify-only --verify-diagnostics %s
// Resource limits sema checks before the verifier runs: a register budget that is not a multiple of 8 and
// a setmaxnreg role that does not start on a warpgroup boundary.
target sm_90a;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(384) {
  // expected-error@+1 E0410 {{regs(44) is invalid: setmaxnreg takes a multiple of 8 in 24..256}}
  role load = warps(0..2) regs(44) {
  }
  // expected-error@+1 E0404 {{'regs' (setmaxnreg) in role 'math' needs whole warpgroups, but the rol}}
  role math = warps(2..6) regs(232) {
  }
}
