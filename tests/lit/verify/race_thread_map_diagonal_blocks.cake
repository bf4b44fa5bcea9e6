// RUN: %cakec --verify-only --verify-diagnostics %s
// The row within the micro-tile is t % 2 instead of t % 4: threads t and t + 2 write the same four elements.
// Fixed twin: race_thread_map_diagonal_blocks_fixed.cake.
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
    fbuf[diag_row0(t) + t % 2, diag_col0(t) +: 4] = f32x4(1.0, 2.0, 3.0, 4.0);
  }
  syncthreads;
  let r = t / 4;
  let c = (t % 4) * 16;
  if t < 256 {
    Out[r, c +: 16] = fbuf[r, c +: 16];
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@20 E0655 {{write 'fbuf[diag_row0(t) + t % 2, diag_col0(t) +: 4]' races with the write 'fbuf[diag_row0(t) + t % 2, diag_col0(t) +: 4]': two threads access shared 'fbuf' in the same barrier interval}}
// expected-note@20 {{the other access: write by thread 0 (warp 0, lane 0)}}
// expected-note@20 {{counterexample: thread 2 (warp 0, lane 2) writes fbuf[0, 0 +: 4] while thread 0 (warp 0, lane 0) writes fbuf[0, 0 +: 4], in the same barrier interval}}
