// Row and column vectors stored into shared memory: each warp of a warpgroup writes its 16-row band of a
// row vector (no race between the warps), but every warp writes all N columns of a column vector, so four
// warps storing one at the same place race (E0655); a per-warp row of the scratch does not.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k(O: f32[4, 64], P: f32[64]) grid(1) threads(128) {
  shared rows: f32[64];
  shared cols: f32[64];
  shared perwarp: f32[4, 64];
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  store rows[0] <- rowmax(acc);
  store perwarp[i32(warp), 0] <- colsum(acc);
  store cols[0] <- colmax(acc);          // expected-error E0655 {{}}
  syncthreads;
  let t = i32(tid.x);
  if t < 64 {
    P[t] = rows[t];
    O[0, t] = cols[t] + perwarp[1, t];
  }
}
// expected-note@13 {{the other access: write by thread 0 (warp 0, lane 0)}}
// expected-note@13 {{counterexample: thread 32 (warp 1, lane 0) writes cols[0 +: 64] while thread 0 (warp 0, lane 0) writes cols[0 +: 64], in the same barrier interval}}
