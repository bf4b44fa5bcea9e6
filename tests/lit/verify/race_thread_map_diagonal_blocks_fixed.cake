// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: verified
// 160 threads each write a 1 x 4 piece of the ten 4 x 4 micro-tiles on and below the diagonal of four
// 16 x 16 blocks (block t / 40, micro-tile (t / 4) % 10 through selects, row t % 4): no two threads share an
// element.  The write depends on nothing but the thread, so after a short try of the solver (which needed
// 4 s for this injectivity) the race check computes each thread's elements and compares them.
// Fixed twin of race_thread_map_diagonal_blocks.cake.
target sm_90a;

fn diag_row0(t: i32) -> i32 {
  let id = (t / 4) % 10;
  return 16 * (t / 40) + 4 * (select(id >= 1, 1, 0) + select(id >= 3, 1, 0) + select(id >= 6, 1, 0));
}

fn diag_col0(t: i32) -> i32 {
  let id = (t / 4) % 10;
  return 16 * (t / 40) + 4 * (id - select(id >= 6, 6, select(id >= 3, 3, select(id >= 1, 1, 0))));
}

kernel diag(Out: f32[64, 64] align(16)) grid(1) threads(256) {
  shared fbuf: f32[64, 64] align(16);
  let t = i32(tid.x);
  if t < 160 {
    fbuf[diag_row0(t) + t % 4, diag_col0(t) +: 4] = f32x4(1.0, 2.0, 3.0, 4.0);
  }
  syncthreads;
  let r = t / 4;
  let c = (t % 4) * 16;
  if t < 256 {
    Out[r, c +: 16] = fbuf[r, c +: 16];
  }
}
