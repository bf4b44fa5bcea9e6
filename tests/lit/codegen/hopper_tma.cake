// TMA (sm_90a): tensor-map parameters (.param .align 64 .b8 [128], addressed through cvta.param), 2-D and
// 3-D loads completing on an mbarrier, multicast to a cluster, sub-tile destinations, stores with their
// bulk groups; the manifest lists the tensormap ABI slots and the tma box/swizzle.
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --no-verify -o %t.cubin
// RUN: %FileCheck %s --check-prefix=MANIFEST < %t.cubin.json
target sm_90a;

// CHECK: .param .u64 cake_param_A,
// CHECK: .param .align 64 .b8 cake_tmap_A[128],
// CHECK-NEXT: .param .align 64 .b8 cake_tmap_B[128],
// CHECK-NEXT: .param .align 64 .b8 cake_tmap_V[128],
// CHECK-NEXT: .param .align 64 .b8 cake_tmap_C[128]
// MANIFEST: "name": "A", "kind": "tensor", "dtype": "bf16", "dims": ["M", "K"], "align": 16, "tma": {"box": [128, 64], "swizzle": "128B"}
// MANIFEST: "name": "V", {{.*}} "tma": {"box": [2, 64, 32], "swizzle": "64B"}
// MANIFEST: "name": "C", {{.*}} "tma": {"box": [64, 32], "swizzle": "none"}
// MANIFEST: {"kind": "tensormap", "param": 0}, {"kind": "tensormap", "param": 1}, {"kind": "tensormap", "param": 2}, {"kind": "tensormap", "param": 3}
kernel k<BM = 128, BK = 64>(A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
                            B: bf16[N, K] tma(box=[64, BK], swizzle=128B) align(16),
                            V: bf16[P, Q, R] tma(box=[2, 64, 32], swizzle=64B) align(16),
                            C: f32[M, L] tma(box=[64, 32]) align(16))
  grid(2) threads(128) cluster(2)
{
  shared a: bf16[2][BM, BK] swizzle(128B) align(1024);
  shared v: bf16[2, 64, 32] swizzle(64B) align(512);
  shared c: f32[64, 32] align(128);
  mbarrier full[2] arrivals(1);
  if tid.x == 0 {
    mbarrier.init full;
    fence.mbarrier_init;
  }
  cluster.sync;
  elect {
    let s = i32(block.x) % 2;
    // CHECK: mov.u64 [[SYM:%rd[0-9]+]], cake_tmap_A;
    // CHECK-NEXT: cvta.param.u64 [[MAP:%rd[0-9]+]], [[SYM]];
    // Coordinates innermost first: {k, m}.
    // CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [[[MAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [{{%r[0-9]+}}+{{[0-9]+}}];
    arrive full[s] expect_tx(BM * BK * 2);
    tma.load a[s] <- A[i32(block.x) * BM, 3 * BK] signal(full[s]);
    // A 64-row sub-tile of stage 1, multicast to both CTAs: 16-bit mask, offset 1 * 16384 + 64 * 128.
    // CHECK: mov.b16 [[MASK:%rs[0-9]+]], 3;
    // CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%r[0-9]+}}+{{[0-9]+}}], [[MASK]];
    tma.load a[1][64 +: 64, :] <- B[0, 0] signal(full[1]) multicast(3);
    // 3-D box.
    // CHECK: cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}]
    tma.load v <- V[0, 64, 32] signal(full[0]);
    wait full[0] parity(0);
    // Stores: bulk group, commit, wait for the shared reads.
    // CHECK: cvta.param.u64 [[CMAP:%rd[0-9]+]], {{%rd[0-9]+}};
    // CHECK-NEXT: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [[[CMAP]], {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%r[0-9]+}}];
    // CHECK-NEXT: cp.async.bulk.commit_group;
    // CHECK-NEXT: cp.async.bulk.wait_group.read 0;
    tma.store C[64, 32] <- c;
    tma.store.commit;
    tma.store.wait 0;
  }
}
