// layouts_tma_rank4: device check of rank-4 TMA tensors whose box drops its unit dims
// (bench/layouts_check.py): each block copies the [64, 64] tile (b, h, t0) of Q into O through a 2-D shared
// tile, and the [64, 128] tile of Q2 into O2 through a column-blocked tile (two boxes each way).
target sm_90a;

kernel layouts_tma_rank4(
    Q: bf16[B, H, T, 64] tma(box=[1, 1, 64, 64], swizzle=128B) align(16),
    O: bf16[B, H, T, 64] tma(box=[1, 1, 64, 64], swizzle=128B) align(16),
    Q2: bf16[B, H, T, 128] tma(box=[1, 1, 64, 64], swizzle=128B) align(16),
    O2: bf16[B, H, T, 128] tma(box=[1, 1, 64, 64], swizzle=128B) align(16))
  requires(T % 64 == 0)
  grid(T / 64, H, B) threads(32)
{
  shared q: bf16[64, 64] swizzle(128B) align(1024);
  shared v: bf16[64, 128] swizzle(128B) align(1024);
  mbarrier full arrivals(1);
  if lane == 0 { mbarrier.init full; fence.mbarrier_init; }
  syncthreads;
  let t0 = i32(block.x) * 64;
  let h = i32(block.y);
  let b = i32(block.z);
  elect {
    arrive full expect_tx(3 * 64 * 64 * 2);
    tma.load q <- Q[b, h, t0, 0] signal(full);
    tma.load v[:, 0 +: 64] <- Q2[b, h, t0, 0] signal(full);
    tma.load v[:, 64 +: 64] <- Q2[b, h, t0, 64] signal(full);
    wait full parity(0);
    tma.store O[b, h, t0, 0] <- q;
    tma.store O2[b, h, t0, 0] <- v[:, 0 +: 64];
    tma.store O2[b, h, t0, 64] <- v[:, 64 +: 64];
    tma.store.commit;
    tma.store.wait 0;
  }
}
