// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s --check-prefix=CLEAN
// CLEAN: verified
// RUN: sed -e '/sync turn\[/d' -e '/arrive turn\[/d' %s > %t.noturn.cake
// RUN: not %cakec --verify-only %t.noturn.cake 2>&1 | %FileCheck %s --check-prefix=NOTURN
// NOTURN: but math[1] then reads 'a[0]' {{.*}} which no completed phase has filled [E0605]
// Two consumer warpgroups take turns on whole tiles of KT k-tiles each from one S-stage ring: in iteration h
// of the unrolled turn loop, math[h] syncs turn[h], waits for and reads the tile's k-tiles, and hands over
// (arrive turn[1 - h]); the other warpgroup only counts the k-tiles (`t += 1`), so math[1] joins the ring
// mid-sequence (its first wait, for k-tile KT, targets phase KT / S of its stage).  The hand-off before the
// mainloop is what makes that wait target the right phase; the verifier proves it: the warps that reach
// `sync turn[math.index]` under `if h == math.index` are those of every iteration of h, the lap check's frozen
// run keeps the named barriers' order (it let math[1] through `sync turn[1]` before, a false E0606 at the
// producer's wait), and the async-proxy check walks the h loop per value.  Without the turns math[1]'s wait
// passes on phase 0 of the stage (E0605).
target sm_90a;

kernel pingpong<S = 3>(
    A: f32[M, K] tma(box=[32, 32]) align(16),
    Out: f32[M, 32] align(16))
  requires(M % 64 == 0, K % 32 == 0, M <= 65536, K <= 65536)
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
  let pairs = M / 64;
  let kt = K / 32;
  role load = warpgroup(0) {
    if load.warp == 0 {
      elect {
        var t: i32 = 0;
        for j in 0..pairs {
          for h in 0..2 unroll {
            for k in 0..kt {
              let s = t % S;
              wait empty[s] parity(((t / S) & 1) ^ 1);
              arrive full[s] expect_tx(32 * 32 * 4);
              tma.load a[s] <- A[(2 * j + h) * 32, k * 32] signal(full[s]);
              t += 1;
            }
          }
        }
      }
    }
  }
  role math[2] = warpgroups(1..3) {
    if math.index == 1 {
      arrive turn[0];
    }
    var t: i32 = 0;
    for j in 0..pairs {
      for h in 0..2 unroll {
        if h == math.index {
          sync turn[math.index];
        }
        for k in 0..kt {
          if h == math.index {
            let s = t % S;
            wait full[s] parity((t / S) & 1);
            let r = i32(math.thread) / 4;
            let c = (i32(math.thread) % 4) * 8;
            Out[(2 * j + h) * 32 + r, c +: 8] = a[s][r, c +: 8];
            elect {
              arrive empty[s];
            }
          }
          t += 1;
        }
        if h == math.index {
          arrive turn[1 - math.index];
        }
      }
    }
    if math.index == 0 {
      sync turn[0];
    }
  }
}
