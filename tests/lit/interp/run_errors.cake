// cakec run: errors found while a kernel runs are located diagnostics naming the block and thread, and
// the run stops (exit 1) without a crash.
// RUN: %expect-exit 1 %cakec run %s --kernel oob --shape N=40 2>&1 | %FileCheck %s --check-prefix=OOB
// OOB: run_errors.cake:[[@LINE+16]]:5: error: store of 'X' out of bounds in block (0, 0, 0), thread 40 (warp 1, lane 8): index 40 of dimension 0 is outside [0, 40) [E0901]
// OOB: hint: guard the access with an 'if'
// RUN: %expect-exit 1 %cakec run %s --kernel partial --shape N=32 2>&1 | %FileCheck %s --check-prefix=PARTIAL
// PARTIAL: error: 'warp.sum' executed by 16 of the 32 lanes of warp 0 in block (0, 0, 0) [E0904]
// RUN: %expect-exit 1 %cakec run %s --kernel deadlock --shape N=32 2>&1 | %FileCheck %s --check-prefix=DEADLOCK
// DEADLOCK: error: deadlock in block (0, 0, 0): no warp can make progress [E0902]
// DEADLOCK: note: warp 0 waits here (syncthreads)
// DEADLOCK: note: warp 1 waits here (sync b, barrier 1)
// RUN: %expect-exit 1 %cakec run %s --kernel mbar --shape N=32 2>&1 | %FileCheck %s --check-prefix=NOTYET
// NOTYET: error: the interpreter does not support the operation 'mbarrier.init' yet [E0903]
// RUN: %expect-exit 1 %cakec run %s --kernel oob --shape N=40 --max-steps 1 2>&1 | %FileCheck %s --check-prefix=STEPS
// STEPS: error: the run was stopped after 1 warp statements [E0909]
target sm_90a;

kernel oob(X: f32[N]) grid(1) threads(64) {
  let i = i32(tid.x);
  X[i] = 1.0;
}

kernel partial(X: f32[N]) grid(1) threads(32) {
  if lane < 16 {
    X[lane] = warp.sum(1.0);
  }
}

kernel deadlock(X: f32[N]) grid(1) threads(64) {
  barrier b id(1) threads(64);
  if warp == 0 {
    syncthreads;
  } else {
    sync b;
  }
}

kernel mbar(X: f32[N]) grid(1) threads(32) {
  mbarrier full arrivals(1);
  elect {
    mbarrier.init full;
  }
}
