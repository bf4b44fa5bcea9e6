// E0356: a TMA tile of a column-blocked array must be one block (one swizzle span wide) on a block boundary.
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_90a;

kernel k(V: bf16[T, 128] tma(box=[64, 64], swizzle=128B) align(16)) grid(1) threads(128) {
  shared v: bf16[2][64, 128] swizzle(128B) align(1024);
  mbarrier full arrivals(1);
  if tid.x == 0 { mbarrier.init full; fence.mbarrier_init; }
  syncthreads;
  elect {
    arrive full expect_tx(2 * 64 * 64 * 2);
    tma.load v[0][:, 32 +: 64] <- V[0, 32] signal(full);   // expected-error E0356 {{the TMA tile 'v[0][:, 32 +: 64]' is not one column block of 'v': its first column 32 is not a multiple of the block width 64}}
    tma.load v[1][:, 64 +: 64] <- V[0, 64] signal(full);
    wait full parity(0);
  }
}
