// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s
// Atomics of many threads to one shared element do not race each other; plain accesses ordered by barriers.
// CHECK: verified: {{[0-9]+}} obligations proven
target sm_80;

kernel sum(X: f32[N], Y: f32[1]) requires(N > 0) grid(cdiv(N, 128)) threads(128) {
  shared total: f32[1];
  let t = i32(tid.x);
  if t == 0 {
    total[0] = 0.0;
  }
  syncthreads;
  let i = i32(block.x) * 128 + t;
  if i < N {
    red.add total[0], X[i];
  }
  let seen = atom.add(total[0], 0.0);
  syncthreads;
  if t == 0 {
    red.add Y[0], total[0];
  }
}
