// E0914: lane 31 reads buf[32], which no thread wrote (an off-by-one in the producer's range).
// RUN: %expect-exit 1 %cakec run %s --shape N=32 2>&1 | %FileCheck %s
// CHECK: E0914_interp_uninitialized_read.cake:13:3: error: shared 'buf' element [32] is read by warp 0 but was never written [E0914]
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  shared buf: f32[33];
  buf[lane] = f32(lane);
  syncthreads;
  if lane == 31 {
    X[lane] = 0.0;
  }
  X[lane] = buf[lane + 1];
}
