// E0335: a fragment index gathers scalar elements from a global or shared tensor only.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k(X: f32[N], V: f32x2[N]) grid(1) threads(128) {
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  var regs: f32[64];
  let ok = X[acc.col];
  let v = V[acc.col];      // expected-error E0335 {{'V[acc.col]' cannot gather from f32x2[N]}}
  let r = regs[acc.col];   // expected-error E0335 {{'regs[acc.col]' cannot gather from f32[64]}}
}
