// E0334: element-wise operations on fragments of different layouts; a row vector broadcasts only onto its
// own family, and a broadcast vector of another length (an mma row vector onto a wgmma tile) is refused.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k(X: f32[N]) grid(1) threads(128) {
  var a: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  var b: frag<wgmma_acc, f32, 64, 128, 16> = 0.0;
  var c: frag<mma_c, f32, 16, 8, 16> = 0.0;
  var rw: frag<wgmma_row, f32, 64> = 0.0;
  var rm: frag<mma_row, f32, 16> = 0.0;
  let ok1 = a * rw;
  let ok2 = c + rm;
  let x = a + b;           // expected-error E0334 {{element-wise '+' on fragments of different layouts}}
  let y = a * rm;          // expected-error E0334 {{element-wise '*' on fragments of different layouts}}
  let z = max(c, rw);      // expected-error E0334 {{element-wise 'max' on fragments of different layouts}}
}
