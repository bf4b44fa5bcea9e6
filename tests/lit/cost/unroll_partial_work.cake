// unroll(N) does the same work as the plain loop: the cost model counts the same FLOPs and bytes for
// both kernels (only the loop overhead differs, one increment-and-branch per N iterations).
// RUN: %cakec %s --estimate --shape N=4096 | %FileCheck %s
target sm_90a;

fn softmax_merge(var m: f32, var l: f32, m_new: f32, l_new: f32) {
  let m_max = max(m, m_new);
  l = l * ex2(m - m_max) + l_new * ex2(m_new - m_max);
  m = m_max;
}

kernel plain(X: f32[N, 64], Y: f32[N]) requires(N % 32 == 0) grid(N / 32) threads(32) {
  let row = i32(block.x) * 32 + i32(lane);
  var m: f32 = -inf;
  var l: f32 = 0.0;
  for c in 0..63 {
    softmax_merge(m, l, X[row, c], 1.0);
  }
  Y[row] = l + m;
}

kernel unrolled(X: f32[N, 64], Y: f32[N]) requires(N % 32 == 0) grid(N / 32) threads(32) {
  let row = i32(block.x) * 32 + i32(lane);
  var m: f32 = -inf;
  var l: f32 = 0.0;
  for c in 0..63 unroll(4) {
    softmax_merge(m, l, X[row, c], 1.0);
  }
  Y[row] = l + m;
}
// CHECK: kernel plain at N=4096
// CHECK: work tensor 0 FLOP, fp32 [[F:[0-9.]+ [KM]?FLOP]], sfu [[S:[0-9.]+ [KM]?op]]
// CHECK: memory DRAM [[D:[0-9.]+ [KM]?B]] read
// CHECK: kernel unrolled at N=4096
// CHECK: work tensor 0 FLOP, fp32 [[F]], sfu [[S]]
// CHECK: memory DRAM [[D]] read
