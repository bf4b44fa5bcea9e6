// Barriers: syncthreads, named barriers, mbarriers on sm_80 (init per stage, arrive, test_wait.parity loop).
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s
target sm_80;

kernel bars(X: f32[N]) grid(1) threads(128) {
  mbarrier full[2] arrivals(64);
  barrier epi id(3) threads(64);
  // mbarriers live in the dynamic shared buffer at sema's offset, 8 bytes each.
  // CHECK: mov.u32 [[SMEM:%r[0-9]+]], cake_smem;
  // CHECK: mbarrier.init.shared.b64 [[[SMEM]]], 64;
  // CHECK-NEXT: mbarrier.init.shared.b64 [[[SMEM]]+8], 64;
  // CHECK: bar.sync 0;
  if tid.x == 0 {
    mbarrier.init full;
  }
  syncthreads;
  let t = i32(tid.x);
  // A stage chosen at run time: base + 8 * s.
  // CHECK: shl.b32 [[OFF:%r[0-9]+]], {{%r[0-9]+}}, 3;
  // CHECK-NEXT: add.s32 [[A:%r[0-9]+]], [[SMEM]], [[OFF]];
  // CHECK-NEXT: mbarrier.arrive.shared.b64 {{%rd[0-9]+}}, [[[A]]];
  arrive full[t % 2];
  // wait: spin on test_wait.parity; a constant parity is an immediate.
  // CHECK: [[W:\$L_[0-9]+_wait]]:
  // CHECK-NEXT: mbarrier.test_wait.parity.shared.b64 [[D:%p[0-9]+]], [[[SMEM]]+8], 1;
  // CHECK-NEXT: @![[D]] bra [[W]];
  wait full[1] parity(1);
  // A run-time parity is masked to one bit.
  // CHECK: and.b32 [[PAR:%r[0-9]+]], {{%r[0-9]+}}, 1;
  // CHECK: mbarrier.test_wait.parity.shared.b64 {{%p[0-9]+}}, [[[SMEM]]], [[PAR]];
  wait full[0] parity(t / 2);
  // Named barrier: bar.sync id, threads / bar.arrive id, threads.
  // CHECK: bar.sync 3, 64;
  // CHECK: bar.arrive 3, 64;
  if t < 64 {
    sync epi;
  } else {
    arrive epi;
  }
}
