// RUN: %expect-exit 1 %cakec %s --estimate --shape N=70000 2>&1 | %FileCheck %s
// RUN: %cakec %s --estimate --shape N=65535 | %FileCheck %s --check-prefix=OK
// A grid's y and z dimensions hold at most 65535 blocks (x: 2^31 - 1): a shape past that cannot be launched,
// so the cost model times nothing there (E0804) - and three dimensions near 2^31 no longer overflow its 64-bit
// block count (found by the cost fuzzer).
// CHECK: error: the grid of kernel 'k' is 70000 at this shape [E0804]
// OK: predicted
target sm_80;

kernel k(A: f32[N]) requires(N >= 1) grid(1, N) threads(32) {
  if i32(block.y) < N && i32(tid.x) == 0 {
    A[i32(block.y)] = 1.0;
  }
}
