// layouts_wgmma: device check of the wgmma operand layouts (bench/layouts_check.py).
//   D1[64, 128] = A[64, 64] * V[64, 128]        A K-major; V row-major = an MN-major B of two column blocks
//   D2[64, 64]  = AT[128, 64]^T * KB[64, 128]^T  AT M-major (read .T); KB K-major with K = 128 (two blocks)
//   VX[64, 128] = the column-blocked tile vb read back with plain loads (runtime column index)
//   E1[64, 128] = bf16(D1) staged through a column-blocked tile with stmatrix, then two TMA stores
//   E2[64, 128] = bf16(D1) staged one 64-column slice of the accumulator at a time (store ..[:, 64 * j +: 64])
target sm_90a;

kernel layouts_wgmma(
    A: bf16[64, 64] tma(box=[64, 64], swizzle=128B) align(16),
    V: bf16[64, 128] tma(box=[64, 64], swizzle=128B) align(16),
    AT: bf16[128, 64] tma(box=[64, 64], swizzle=128B) align(16),
    KB: bf16[64, 128] tma(box=[64, 64], swizzle=128B) align(16),
    E1: bf16[64, 128] tma(box=[64, 64], swizzle=128B) align(16),
    E2: bf16[64, 128] tma(box=[64, 64], swizzle=128B) align(16),
    D1: f32[64, 128] align(16), D2: f32[64, 64] align(16), VX: bf16[64, 128] align(16))
  grid(1) threads(128)
{
  shared a: bf16[64, 64] swizzle(128B) align(1024);
  shared vb: bf16[64, 128] swizzle(128B) align(1024);
  shared at: bf16[128, 64] swizzle(128B) align(1024);
  shared kb: bf16[64, 128] swizzle(128B) align(1024);
  shared cs: bf16[64, 128] swizzle(128B) align(1024);
  shared cs2: bf16[2][64, 64] swizzle(128B) align(1024);
  mbarrier full arrivals(1);
  if tid.x == 0 { mbarrier.init full; fence.mbarrier_init; }
  syncthreads;
  if tid.x < 32 {
    elect {
      arrive full expect_tx(8192 + 3 * 16384);
      tma.load a <- A[0, 0] signal(full);
      tma.load vb[:, 0 +: 64] <- V[0, 0] signal(full);
      tma.load vb[:, 64 +: 64] <- V[0, 64] signal(full);
      tma.load at[0 +: 64, :] <- AT[0, 0] signal(full);
      tma.load at[64 +: 64, :] <- AT[64, 0] signal(full);
      tma.load kb[:, 0 +: 64] <- KB[0, 0] signal(full);
      tma.load kb[:, 64 +: 64] <- KB[0, 64] signal(full);
    }
  }
  wait full parity(0);
  var o1: frag<wgmma_acc, f32, 64, 128, 16> = 0.0;
  var o2: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  wgmma.fence;
  wgmma o1 += a * vb;
  wgmma o2 += at.T * kb.T;
  wgmma.commit;
  wgmma.wait 0;
  store D1[0, 0] <- o1;
  store D2[0, 0] <- o2;
  for i in 0..64 {
    let e = i32(tid.x) + 128 * i;
    VX[e / 128, e % 128] = vb[e / 128, e % 128];
  }
  store cs[0, 0] <- bf16(o1);
  for j in 0..2 unroll {
    store cs2[j][0, 0] <- bf16(o1)[:, 64 * j +: 64];
  }
  fence.proxy_async;
  syncthreads;
  if tid.x < 32 {
    elect {
      tma.store E1[0, 0] <- cs[:, 0 +: 64];
      tma.store E1[0, 64] <- cs[:, 64 +: 64];
      tma.store E2[0, 0] <- cs2[0];
      tma.store E2[0, 64] <- cs2[1];
      tma.store.commit;
      tma.store.wait 0;
    }
  }
}
