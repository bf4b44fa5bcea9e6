// A ring whose stages are split per role instance, buf[s][w]: every level but the innermost tile numbers stage
// slots (buf[2][2][1, 64] has four), so each warpgroup refilling and reading its own slice is ordered by its own
// barrier and verifies (it was reported as reading the other instance's copy, E0605, when only the first level
// made stages).  Reading the other instance's slice, which that instance refills without waiting for the reader,
// is an error at the refill (the reader's wait is right: no parity fix-it), the slot named by both indices.
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s --check-prefix=OWN
// OWN: verified
// RUN: %expect-exit 1 %cakec --verify-only -D OTHER=1 %s 2>&1 | %FileCheck %s --check-prefix=OTHER --implicit-check-not=E0605
// OTHER: error: math[0] (c = 1) overwrites 'buf[0][0]' while math[1] may still read it [E0609]
// OTHER: note: math[1] waits here for phase 0, whose copy filled 'buf[0][0]' (c = 0)
// OTHER: hint: let the refill wait until every reader released the stage
target sm_90a;

kernel rings<OTHER = 0>(G: f32[N, 64] tma(box=[1, 64]) align(16), O: f32[N, 128] align(16))
  requires(N >= 2, N < 65536) grid(1) threads(256)
{
  shared buf: f32[2][2][1, 64] align(128);
  mbarrier full[2] arrivals(2);
  barrier wg[2] id(1) threads(128);
  if tid.x == 0 {
    mbarrier.init full;
    fence.mbarrier_init;
  }
  syncthreads;
  role math[2] = warpgroups(0..2) {
    let wi = math.index;
    let t = math.thread;
    if math.warp == 0 {
      elect {
        arrive full[0] expect_tx(256);
        tma.load buf[0][wi] <- G[0, 0] signal(full[0]);
      }
    }
    for c in 0..N - 1 {
      let st = c % 2;
      if math.warp == 0 {
        elect {
          arrive full[(c + 1) % 2] expect_tx(256);
          tma.load buf[(c + 1) % 2][wi] <- G[c + 1, 0] signal(full[(c + 1) % 2]);
        }
      }
      wait full[st] parity((c / 2) & 1);
      if t < 64 {
        O[c, 64 * wi + t] = buf[st][select(OTHER == 1, 1 - wi, wi)][0, t];
      }
      sync wg[wi];
    }
    let cl = N - 1;
    wait full[cl % 2] parity((cl / 2) & 1);
    if t < 64 {
      O[cl, 64 * wi + t] = buf[cl % 2][wi][0, t];
    }
  }
}
