// Roles on sm_90a: setmaxnreg per role (.dec below the entry allocation 64K / 384 = 168, .inc above,
// nothing when equal), the .minnctapersm 1 cap that makes it effective, elect.sync, cluster builtins and
// stmatrix.  The kernel assembles with ptxas without spills.
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --no-verify -o %t.cubin -v 2>&1 | %FileCheck %s --check-prefix=PTXAS
// PTXAS: 0 bytes stack, 0 bytes spill stores, 0 bytes spill loads
target sm_90a;

// CHECK: .maxntid 384, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK-NEXT: .reqnctapercluster 2, 1, 1
kernel k(X: bf16[M, N] align(16), R: u32[N]) grid(2) threads(384) cluster(2) {
  shared t: bf16[64, 64] swizzle(128B) align(1024);
  // CHECK: mov.u32 {{%r[0-9]+}}, %cluster_ctarank;
  // CHECK: mov.u32 {{%r[0-9]+}}, %cluster_ctaid.x;
  R[0] = cluster.rank + cluster.x;
  role load = warpgroup(0) regs(40) {
    // CHECK: setmaxnreg.dec.sync.aligned.u32 40;
    // CHECK: activemask.b32 [[M:%r[0-9]+]];
    // CHECK-NEXT: elect.sync _|[[P:%p[0-9]+]], [[M]];
    // CHECK-NEXT: @![[P]] bra
    elect {
      R[1] = 7;
    }
  }
  role math = warpgroup(1) regs(232) {
    // CHECK: setmaxnreg.inc.sync.aligned.u32 232;
    var fa: frag<mma_a, bf16, 16, 8, 16> = 1.0;
    var c: frag<mma_c, f32, 16, 8, 16> = 2.0;
    // stmatrix: four 8x8 matrices from the four registers of an mma_a fragment; per-lane row addresses.
    // CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16 [{{%r[0-9]+}}{{.*}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
    stmatrix t[lane, 8 * math.warp +: 8] <- fa;
    // An f32 accumulator converted to bf16: two packed registers (cvt.rn.bf16x2.f32), x2.
    // CHECK: cvt.rn.bf16x2.f32
    // CHECK: stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [{{.*}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
    stmatrix.trans t[lane % 16, 32 +: 8] <- bf16(c);
  }
  // CHECK-NOT: setmaxnreg
  role idle = warpgroup(2) regs(168) {
    R[2] = 1;
  }
}
