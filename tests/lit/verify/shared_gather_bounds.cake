// RUN: %cakec --verify-only --verify-diagnostics %s
// A gather from shared memory is bounds-checked with each fragment coordinate ranging over its tile:
// norms[s][acc.col] (col < 64) is proven inside [S][64]; norms[s][acc.col + 1] can reach column 64.
target sm_90a;

kernel g<S = 2>(CN: f32[K], O: f32[M, 64]) requires(K == 64, M % 64 == 0) grid(M / 64) threads(128) {
  shared norms: f32[S][64];
  let t = i32(tid.x);
  if t < 64 {
    norms[0][t] = CN[t];
    norms[1][t] = CN[t];
  }
  syncthreads;
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  let s = i32(block.x) % S;
  store O[i32(block.x) * 64, 0] <- acc + norms[s][acc.col];
  store O[i32(block.x) * 64, 0] <- acc + norms[s][acc.col + 1];
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@17 E0652 {{load 'norms[s][acc.col + 1]' may be out of bounds: index 'acc.col + 1' of dimension 0 can reach 64, past '64' = 64}}
// expected-note@17 {{counterexample}}
