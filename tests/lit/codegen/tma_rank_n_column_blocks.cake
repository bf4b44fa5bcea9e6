// TMA tensors of rank 4 whose box drops its unit dims: Q[b, h, t0, 0] with box [1, 1, 64, 64] loads a 2-D
// [64, 64] tile with cp.async.bulk.tensor.4d, coordinates innermost first; a column-blocked array
// (bf16[2][64, 128] swizzle(128B): two 64-column blocks of 64 x 128 bytes = 8192 bytes per stage) takes one
// box per block, at the block's start; plain accesses to it use the block layout.
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --no-verify -o %t.cubin
// RUN: %cakec %s --verify-only
target sm_90a;

kernel k(Q: bf16[B, H, T, 64] tma(box=[1, 1, 64, 64], swizzle=128B) align(16),
         O: bf16[B, H, T, 128] tma(box=[1, 1, 64, 64], swizzle=128B) align(16),
         X: bf16[64, 128] align(16))
  requires(T % 64 == 0)
  grid(T / 64, H, B) threads(128)
{
  shared q: bf16[64, 64] swizzle(128B) align(1024);
  shared v: bf16[2][64, 128] swizzle(128B) align(1024);
  mbarrier full arrivals(1);
  let t0 = i32(block.x) * 64;
  let h = i32(block.y);
  let b = i32(block.z);
  if tid.x == 0 { mbarrier.init full; fence.mbarrier_init; }
  syncthreads;
  if tid.x < 32 {
    elect {
      arrive full expect_tx(3 * 64 * 64 * 2);
      // CHECK: cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%r[0-9]+}}+{{[0-9]+}}];
      tma.load q <- Q[b, h, t0, 0] signal(full);
      // v starts at 8192 (after q); its stage 1 16384 bytes further, block 1 of that 8192 further: 32768.
      // CHECK: cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes
      tma.load v[1][:, 0 +: 64] <- O[b, h, t0, 0] signal(full);
      // CHECK: add.s32 [[VB1:%r[0-9]+]], {{%r[0-9]+}}, 32768;
      // CHECK: cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [[[VB1]]], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}]
      tma.load v[1][:, 64 +: 64] <- O[b, h, t0, 64] signal(full);
    }
  }
  wait full parity(0);
  // Element [3, 70] of stage 1: 16384 (stage) + 8192 (block 1) + 3 * 128 + 6 * 2 = 24972 from v's start before
  // the swizzle; XOR (24972 >> 3) & 0x70 = 0x30: 24972 ^ 48 = 25020, + 8192 (v) = 33212.
  // CHECK: ld.shared.b16 {{%rs[0-9]+}}, [{{%r[0-9]+}}+33212];
  if tid.x == 0 { X[0, 0] = v[1][3, 70]; }
  // CHECK: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%r[0-9]+}}]
  if tid.x < 32 { elect { tma.store O[b, h, t0, 64] <- v[1][:, 64 +: 64]; tma.store.commit; tma.store.wait 0; } }
}
