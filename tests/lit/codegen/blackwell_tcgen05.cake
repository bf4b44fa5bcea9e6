// tcgen05 and tensor memory (sm_100a): allocation into a shared slot, relinquish, the kind::f16 MMA with its
// instruction descriptor and SM100 shared-memory descriptors (version bit 46, 128B swizzle), one instruction
// per 16 of K with the accumulate predicate on the first, A from tensor memory, commit to an mbarrier,
// tcgen05.ld / st 32x32b with the warp's lane quarter in the address, waits, fences, the store of a tmem_acc
// fragment and deallocation.  No Blackwell GPU ran this; ptxas assembles it (second RUN line).
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --no-verify -o %t.cubin && test -s %t.cubin
// Every legal N (16..256 step 16) assembles for M = 128:
// RUN: for n in 16 32 48 64 80 96 112 128 144 160 176 192 208 224 240 256; do %cakec %s --no-verify -D BN=$n -o %t.$n.cubin || echo "N=$n FAILED"; done > %t.log 2>&1
// RUN: %FileCheck %s --check-prefix=ALLN --allow-empty < %t.log
// ALLN-NOT: FAILED
target sm_100a;

kernel k<BN = 256>(C: bf16[M, N] align(16), D: f32[M, N] align(16)) grid(1) threads(128) {
  shared a: bf16[2][128, 64] swizzle(128B) align(1024);
  shared b: bf16[2][BN, 64] swizzle(128B) align(1024);
  tmem acc: f32[2][128, BN];
  tmem pa: bf16[128, 64];
  mbarrier done arrivals(1);
  // CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r{{[0-9]+}}+{{[0-9]+}}], 512;
  if warp == 0 {
    tcgen05.alloc acc;
    tcgen05.alloc pa;
    // CHECK: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
    tcgen05.relinquish;
  }
  // CHECK: tcgen05.fence::before_thread_sync;
  // CHECK: bar.sync 0;
  // CHECK: tcgen05.fence::after_thread_sync;
  tcgen05.fence.before;
  syncthreads;
  tcgen05.fence.after;
  let s = i32(block.x) % 2;
  if tid.x == 0 {
    // The descriptor's high word: SBO 1024 >> 4 = 64, version 1 << 14, 128B swizzle (2 << 61): 0x40004040.
    // CHECK: mov.b32 %r{{[0-9]+}}, 1073758272;
    // CHECK: setp.ne.b32 [[ALWAYS:%p[0-9]+]], 1, 0;
    // bf16 x bf16 -> f32, K-major, N >> 3 in bits 17-22, M >> 4 = 8 in bits 24-28: 0x08400490 for N = 256.
    // CHECK: tcgen05.mma.cta_group::1.kind::f16 [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, 138413200, %p{{[0-9]+}};
    // CHECK: tcgen05.mma.cta_group::1.kind::f16 [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, 138413200, [[ALWAYS]];
    // CHECK: tcgen05.mma.cta_group::1.kind::f16 [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, 138413200, [[ALWAYS]];
    // CHECK: tcgen05.mma.cta_group::1.kind::f16 [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, 138413200, [[ALWAYS]];
    // CHECK-NOT: tcgen05.mma
    // CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
    tcgen05.mma acc[s] += a[s] * b[s].T accumulate(false);
    tcgen05.commit done;
    // A from tensor memory: 16 bf16 = 8 columns per k-step.
    // CHECK: tcgen05.mma.cta_group::1.kind::f16 [%r{{[0-9]+}}], [%r{{[0-9]+}}], %rd{{[0-9]+}}, 138413200,
    // CHECK: add.s32 [[A1:%r[0-9]+]], [[A0:%r[0-9]+]], 8;
    // CHECK: tcgen05.mma.cta_group::1.kind::f16 [%r{{[0-9]+}}], [[[A1]]], %rd{{[0-9]+}}, 138413200,
    tcgen05.mma acc[1 - s] += pa * b[s].T;
  }
  var f: frag<tmem_acc, f32, 128, 16, 16>;
  // The lane quarter of the warp: (warp & 3) << 21 = (32 (warp % 4)) << 16.
  // CHECK: shl.b32 [[Q:%r[0-9]+]], %r{{[0-9]+}}, 21;
  // CHECK: tcgen05.ld.sync.aligned.32x32b.x16.b32 {%f{{[0-9]+}}, {{.*}}}, [%r{{[0-9]+}}];
  // CHECK: tcgen05.wait::ld.sync.aligned;
  tcgen05.ld f <- acc[s][:, BN - 16 +: 16];
  tcgen05.wait.ld;
  // Thread t owns row t: a masked bf16x2 store per pair of columns.
  // CHECK: cvt.rn.bf16x2.f32
  // CHECK: @%p{{[0-9]+}} st.global.b32
  store C[0, 16] <- bf16(f);
  // CHECK: @%p{{[0-9]+}} st.global.v2.f32
  store D[0, 0] <- f * 2.0;
  // CHECK: tcgen05.st.sync.aligned.32x32b.x16.b32 [%r{{[0-9]+}}], {%f{{[0-9]+}},
  // CHECK: tcgen05.wait::st.sync.aligned;
  tcgen05.st acc[s][:, 0 +: 16] <- f;
  tcgen05.wait.st;
  tcgen05.fence.before;
  syncthreads;
  // CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r{{[0-9]+}}, 512;
  // CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r{{[0-9]+}}, 32;
  if warp == 0 {
    tcgen05.dealloc acc;
    tcgen05.dealloc pa;
  }
}
