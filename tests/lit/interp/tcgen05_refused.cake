// The interpreter refuses the tcgen05 operations (E0903) before running any of them: a Blackwell kernel is
// never executed half-way on the CPU.
// RUN: %expect-exit 1 %cakec run %s --shape N=32 2>&1 | %FileCheck %s
// CHECK: tcgen05_refused.cake:11:5: error: the interpreter does not support the operation 'tcgen05.alloc' yet [E0903]
target sm_100a;

kernel k(X: f32[N]) grid(1) threads(128) {
  tmem acc: f32[128, 32];
  X[lane] = 1.0;
  if warp == 0 {
    tcgen05.alloc acc;
  }
  tcgen05.fence.before;
  syncthreads;
  tcgen05.fence.after;
  if warp == 0 {
    tcgen05.dealloc acc;
  }
}
