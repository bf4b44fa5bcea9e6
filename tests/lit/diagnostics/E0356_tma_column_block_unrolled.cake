// E0356 after unrolling: a column start that is a loop variable of an unrolled loop is checked by code
// generation, where it is a constant (here j = 1 gives column 32, half-way into block 0).
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_90a;

kernel k(V: bf16[T, 128] tma(box=[64, 64], swizzle=128B) align(16)) grid(1) threads(32) {
  shared v: bf16[64, 128] swizzle(128B) align(1024);
  mbarrier full arrivals(1);
  if lane == 0 { mbarrier.init full; fence.mbarrier_init; }
  syncthreads;
  elect {
    arrive full expect_tx(2 * 64 * 64 * 2);
    for j in 0..2 unroll {
      tma.load v[:, 32 * j +: 64] <- V[0, 64 * j] signal(full);   // expected-error E0356 {{the TMA tile 'v[:, 32 * j +: 64]' is not one column block of 'v': its first column is 32 columns into a block of 64}}
    }
    wait full parity(0);
  }
}
