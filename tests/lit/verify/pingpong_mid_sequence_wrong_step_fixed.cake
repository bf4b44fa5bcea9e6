// RUN: %cakec --verify-only --verify-diagnostics %s
// Two consumer warpgroups take turns on one S = 3 ring: math[i] takes tiles t = 2 j + i, so math[1]'s first
// wait on stage 0 is for tile 3, phase 1 (parity 1), and each consumer skips the phases of the other's
// tiles.  The turn barriers (pingpong: sync turn[i], then arrive turn[1 - i]) order math[1]'s wait for tile 3
// after math[0]'s wait for tile 0, so phase 0 of full[0] is complete when math[1] looks: its parity-1 wait
// targets phase 1.
// Fixed twin of pingpong_mid_sequence_wrong_step.cake.
target sm_90a;

kernel pingpong<S = 3>(
    A: f32[M, 32] tma(box=[32, 32]) align(16),
    Out: f32[M, 32] align(16))
  requires(M % 64 == 0)
  grid(1) threads(384)
{
  shared a: f32[S][32, 32] align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4);
  barrier turn[2] id(1) threads(256);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  let tiles = M / 32;
  let pairs = M / 64;
  role load = warpgroup(0) {
    if load.warp == 0 {
      elect {
        for t in 0..tiles {
          let s = t % S;
          wait empty[s] parity(((t / S) & 1) ^ 1);
          arrive full[s] expect_tx(32 * 32 * 4);
          tma.load a[s] <- A[t * 32, 0] signal(full[s]);
        }
      }
    }
  }
  role math[2] = warpgroups(1..3) {
    if math.index == 1 {
      arrive turn[0];
    }
    for j in 0..pairs {
      let t = 2 * j + i32(math.index);
      let s = t % S;
      wait full[s] parity((t / S) & 1);
      sync turn[math.index];
      let r = i32(math.thread) / 4;
      let c = (i32(math.thread) % 4) * 8;
      Out[t * 32 + r, c +: 8] = a[s][r, c +: 8];
      arrive turn[1 - math.index];
      elect {
        arrive empty[s];
      }
    }
    if math.index == 0 {
      sync turn[0];
    }
  }
}
