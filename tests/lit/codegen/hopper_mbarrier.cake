// Hopper mbarrier forms (sm_90): arrive.expect_tx, mbarrier.expect_tx, remote arrive on a cluster peer
// (mapa + shared::cluster), the try_wait.parity wait loop, and the init fences.
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
target sm_90;

kernel k(X: f32[N]) grid(2) threads(128) cluster(2) {
  mbarrier full[4] arrivals(1);
  // CHECK: .reqnctapercluster 2, 1, 1
  // CHECK: mov.u32 [[SMEM:%r[0-9]+]], cake_smem;
  // CHECK: mbarrier.init.shared.b64 [[[SMEM]]], 1;
  // CHECK: fence.mbarrier_init.release.cluster;
  // CHECK: fence.proxy.async.shared::cta;
  // CHECK: barrier.cluster.arrive.release;
  // CHECK-NEXT: barrier.cluster.wait.acquire;
  if tid.x == 0 {
    mbarrier.init full;
    fence.mbarrier_init;
  }
  fence.proxy_async;
  cluster.sync;
  let s = i32(tid.x) % 4;
  // CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 {{%rd[0-9]+}}, [[[SMEM]]+8], 49152;
  arrive full[1] expect_tx(49152);
  // A run-time byte count is a register.
  // CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 {{%rd[0-9]+}}, [{{%r[0-9]+}}], {{%r[0-9]+}};
  arrive full[s] expect_tx(N * 4);
  // CHECK: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [[[SMEM]]+16], 1024;
  mbarrier.expect_tx full[2], 1024;
  // Remote arrive: the same offset in cluster CTA 1.
  // CHECK: add.s32 [[LOC:%r[0-9]+]], [[SMEM]], 24;
  // CHECK-NEXT: mapa.shared::cluster.u32 [[REM:%r[0-9]+]], [[LOC]], 1;
  // CHECK-NEXT: mbarrier.arrive.shared::cluster.b64 _, [[[REM]]];
  arrive full[3] cta(1);
  // A rank computed at run time.
  // CHECK: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
  // CHECK: mapa.shared::cluster.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
  arrive full[0] cta(cluster.rank ^ 1);
  // sm_90 waits with try_wait (the thread may sleep inside it), in a loop.
  // CHECK: [[W:\$L_[0-9]+_wait]]:
  // CHECK-NEXT: mbarrier.try_wait.parity.shared::cta.b64 [[D:%p[0-9]+]], [[[SMEM]]+8], 1;
  // CHECK-NEXT: @![[D]] bra [[W]];
  wait full[1] parity(1);
  // A run-time parity is masked to one bit; the stage address is base + 8 * s.
  // CHECK: mbarrier.try_wait.parity.shared::cta.b64 {{%p[0-9]+}}, [{{%r[0-9]+}}], {{%r[0-9]+}};
  wait full[s] parity((N / 4) & 1);
}
