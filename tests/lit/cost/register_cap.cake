// --maxrregcount N caps the cost model's register estimate (the .maxnreg N it emits caps ptxas): the estimate of
// this kernel (200 + 24 + 1 registers) allows one block of 256 threads per SM, the cap of 128 two.
// RUN: %cakec --estimate --shape N=1048576 %s | %FileCheck %s --check-prefix=EST
// EST: launch {{.*}} 1 block(s)/SM (limited by registers)
// EST: resources   225 registers/thread (estimated)
// RUN: %cakec --estimate --maxrregcount=128 --shape N=1048576 %s | %FileCheck %s --check-prefix=CAP
// CAP: launch {{.*}} 2 block(s)/SM (limited by registers)
// CAP: resources   128 registers/thread (--maxrregcount)
// RUN: %cakec --estimate --maxrregcount=128 --json --shape N=1048576 %s | %FileCheck %s --check-prefix=JSON
// JSON: "registers_per_thread":128,"registers_source":"maxrregcount"
target sm_90a;

kernel capped(X: f32[N]) requires(N >= 1) grid(cdiv(N, 256)) threads(256) {
  var big: f32[200];
  for j in 0..200 unroll {
    big[j] = f32(j);
  }
  var total: f32 = 0.0;
  for j in 0..200 unroll {
    total += big[j];
  }
  let i = i32(block.x) * 256 + i32(tid.x);
  if i < N {
    X[i] = total;
  }
}
