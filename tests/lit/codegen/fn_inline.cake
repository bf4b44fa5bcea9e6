// An fn called twice (from a kernel and from another fn) gives exactly the PTX of the same code written
// out by hand (Inputs/fn_inline_by_hand.cake): inlining leaves no trace, value parameters are plain lets and
// var parameters update the caller's registers in place.
// RUN: %cakec %s --emit=ptx -o %t.fn.ptx
// RUN: %cakec %S/Inputs/fn_inline_by_hand.cake --emit=ptx -o %t.hand.ptx
// RUN: diff %t.fn.ptx %t.hand.ptx
// RUN: %FileCheck %s < %t.fn.ptx
// The printer keeps the fns and the calls as written.
// RUN: %cakec %s --emit=ir -o - | %FileCheck %s --check-prefix=IR
target sm_80;

// IR: fn sqdist(a: f32, b: f32) -> f32 {
// IR: return d * d;
fn sqdist(a: f32, b: f32) -> f32 {
  let d = a - b;
  return d * d;
}

// A running argmin: best and best_i are the caller's vars.
// IR: fn take_min(var best: f32, var best_i: i32, d: f32, j: i32) {
fn take_min(var best: f32, var best_i: i32, d: f32, j: i32) {
  if d < best {
    best = d;
    best_i = j;
  }
}

fn dist2(x0: f32, y0: f32, x1: f32, y1: f32) -> f32 {
  return sqdist(x0, x1) + sqdist(y0, y1);
}

kernel nearest(P: f32[N, 2], C: f32[4, 2], Out: i32[N]) requires(N % 32 == 0) grid(N / 32) threads(32) {
  let row = i32(block.x) * 32 + i32(lane);
  let px = P[row, 0];
  let py = P[row, 1];
  var best: f32 = inf;
  var best_i: i32 = 0;
  for c in 0..4 unroll {
    // IR: take_min(best, best_i, dist2(px, py, C[c, 0], C[c, 1]), c);
    take_min(best, best_i, dist2(px, py, C[c, 0], C[c, 1]), c);
  }
  Out[row] = best_i;
}
// CHECK-LABEL: .entry nearest(
// CHECK-COUNT-4: setp.lt.f32
// CHECK: st.global.b32
