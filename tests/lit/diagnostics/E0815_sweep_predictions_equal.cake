// E0815 (warning, -Wsweep-ties): a --sweep whose variants all predict the same time ranks nothing (here the
// swept UNUSED changes no work).  A sweep that changes the work gets no warning; -Wno-sweep-ties silences it.
// RUN: %cakec %s --estimate --shape N=1048576 --sweep UNUSED=1,2,3 2>&1 | %FileCheck %s
// CHECK: warning: all 3 variants of the sweep predict the same time ({{.*}} for kernel 'k'); the cost model cannot rank them [E0815]
// RUN: %cakec %s --estimate --shape N=268435456 --sweep THREADS=32,256 2>&1 | %FileCheck %s --check-prefix=RANKS
// RANKS-NOT: warning:
// RUN: %cakec %s --estimate --shape N=1048576 --sweep UNUSED=1,2 -Wno-sweep-ties 2>&1 | %FileCheck %s --check-prefix=RANKS
target sm_90a;

kernel k<THREADS = 256, UNUSED = 1>(X: f32[N], Y: f32[N]) grid(cdiv(N, THREADS)) threads(THREADS) {
  let i = i32(block.x) * THREADS + i32(tid.x);
  if i < N {
    Y[i] = X[i] * 2.0;
  }
}
