// `arrive M[s] expect_tx(B) cta(r)`: one arrival plus B expected transaction bytes on the barrier at the same
// offset in cluster CTA r: mapa.shared::cluster to the peer's address, then
// mbarrier.arrive.expect_tx.shared::cluster.b64 with the state discarded (`_`, required for a
// shared::cluster arrive).  Assembled through ptxas for sm_90.
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --no-verify -o %t.cubin
// RUN: test -s %t.cubin
target sm_90;

kernel k(X: f32[N]) grid(2) threads(128) cluster(2) {
  mbarrier full[4] arrivals(1);
  if tid.x == 0 {
    mbarrier.init full;
    fence.mbarrier_init;
  }
  cluster.sync;
  let s = i32(tid.x) % 4;
  // CHECK: mov.u32 [[SMEM:%r[0-9]+]], cake_smem;
  // Constant stage and rank, constant bytes: the barrier at offset 16 of CTA 1.
  // CHECK: add.s32 [[LOC:%r[0-9]+]], [[SMEM]], 16;
  // CHECK-NEXT: mapa.shared::cluster.u32 [[REM:%r[0-9]+]], [[LOC]], 1;
  // CHECK-NEXT: mbarrier.arrive.expect_tx.shared::cluster.b64 _, [[[REM]]], 49152;
  arrive full[2] expect_tx(49152) cta(1);
  // Run-time stage, rank and byte count: registers.
  // CHECK: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
  // CHECK: mapa.shared::cluster.u32 [[REM2:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
  // CHECK-NEXT: mbarrier.arrive.expect_tx.shared::cluster.b64 _, [[[REM2]]], {{%r[0-9]+}};
  arrive full[s] expect_tx(N * 4) cta(cluster.rank ^ 1);
  // The local forms are unchanged.
  // CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 {{%rd[0-9]+}}, [[[SMEM]]+8], 64;
  arrive full[1] expect_tx(64);
  // CHECK-NOT: mbarrier.arrive.expect_tx.shared::cluster
  cluster.sync;
}
