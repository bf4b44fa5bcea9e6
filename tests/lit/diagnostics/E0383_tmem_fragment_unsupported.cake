// E0383: the warp-level constructs of mma_c / wgmma_acc fragments are not lowered for tmem_acc, whose thread
// holds a whole row (reduce it with a loop over its elements instead).
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_100a;

kernel k(X: f32[N] align(16)) grid(1) threads(128) {
  tmem acc: f32[128, 32];
  var f: frag<tmem_acc, f32, 128, 32, 16>;
  tcgen05.ld f <- acc;
  tcgen05.wait.ld;
  var v: frag<mma_row, f32, 16>;
  var j: frag<mma_row, i32, 16>;
  rowargmin v, j <- f;                   // expected-error E0383 {{'rowargmin' is not available on tmem_acc fragments}}
  let m = rowmax(f);                     // expected-error E0383 {{'rowmax' is not available on tmem_acc fragments}}
  let r = f.row;                         // expected-error E0383 {{'.row' is not available on tmem_acc fragments}}
}
