// fn_inline.cake with every call written out by hand (the reference its PTX is compared with).
target sm_80;

kernel nearest(P: f32[N, 2], C: f32[4, 2], Out: i32[N]) requires(N % 32 == 0) grid(N / 32) threads(32) {
  let row = i32(block.x) * 32 + i32(lane);
  let px = P[row, 0];
  let py = P[row, 1];
  var best: f32 = inf;
  var best_i: i32 = 0;
  for c in 0..4 unroll {
    let cx = C[c, 0];
    let cy = C[c, 1];
    let dx = px - cx;
    let sx = dx * dx;
    let dy = py - cy;
    let sy = dy * dy;
    let d = sx + sy;
    if d < best {
      best = d;
      best_i = c;
    }
  }
  Out[row] = best_i;
}
