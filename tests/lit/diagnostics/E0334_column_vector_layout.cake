// E0334: a column vector broadcasts only onto accumulators of its family with as many columns.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k(X: f32[N]) grid(1) threads(128) {
  var a: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  var b: frag<wgmma_acc, f32, 64, 128, 16> = 0.0;
  var c: frag<mma_c, f32, 16, 8, 16> = 0.0;
  var cw: frag<wgmma_col, f32, 64> = 0.0;
  var cm: frag<mma_col, f32, 8> = 0.0;
  let ok1 = a * cw;
  let ok2 = c + cm;
  let ok3 = b - colmax(b);
  let x = b + cw;          // expected-error E0334 {{element-wise '+' on fragments of different layouts}}
  let y = a * cm;          // expected-error E0334 {{element-wise '*' on fragments of different layouts}}
  let z = max(c, cw);      // expected-error E0334 {{element-wise 'max' on fragments of different layouts}}
  let r = cw.row;          // expected-error E0317 {{has no member 'row'}}
}
