// E0333: a constant fragment element index past the elements each thread holds.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k(X: f32[N]) grid(1) threads(128) {
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  var m: frag<wgmma_row, f32, 64> = 0.0;
  acc[31] = 1.0;
  acc[32] = 1.0;           // expected-error E0333 {{fragment element 32 is out of range: frag<wgmma_acc, f32, 64, 64, 16> holds 32 elements per thread}}
  let x = m[2];            // expected-error E0333 {{fragment element 2 is out of range: frag<wgmma_row, f32, 64> holds 2 elements per thread}}
}
