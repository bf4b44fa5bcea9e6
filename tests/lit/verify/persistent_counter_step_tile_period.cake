// Counters whose step shares a factor with the period: the ring counter `it += 8` (stage (it / 8) % S,
// S = 4) and the consumers' tile counter `t += 8` (i64, so that it cannot wrap around), with which the
// consumers skip the tile-tail release of every eighth tile ((t / 8) % 8 == 7).  The periodicity facts
// shift a counter by P iterations (P = 16 here), so the tile body repeats only after m = 16 tiles.  Counting
// a counter's advance in value instead (m = P / gcd(P, 8 x iterations per tile) = 2) simulates tile counts
// only up to the counter prefix + 2m + 2, misses the deadlock and calls the protocol verified.  The skipped
// release of tile 7 deadlocks the producer two tiles later (10 tiles of two k-tiles), and the verifier
// reports it.
// (Derived from samples/hopper_gemm_persistent.cake.)
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;

kernel hopper_gemm_persistent<BM = 128, BN = 256, BK = 64, S = 4, GM = 8>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN / 2, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(cdiv(M, 2 * BM) * cdiv(N, BN) * cdiv(K, BK) <= 268435455, cdiv(M, 2 * BM) * cdiv(N, BN) <= 2147482623, GM * cdiv(N, BN) <= 2147483647, K % 8 == 0, N % 2 == 0, BM == 128, BK * 2 == 128, BN % 16 == 0, S >= 2, GM >= 1)
  grid(num_sms / 2 * 2) threads(384) cluster(2)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(16);

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  cluster.sync;

  let rank = i32(cluster.rank);
  let m_pairs = cdiv(M, 2 * BM);
  let n_tiles = cdiv(N, BN);
  let pairs = m_pairs * n_tiles;
  let k_tiles = cdiv(K, BK);
  let first = i32(block.x) / 2;
  let clusters = i32(grid_dim.x) / 2;
  let group = GM * n_tiles;

  role load = warpgroup(0) regs(40) {
    if load.warp == 0 {
      elect {
        var it: i32 = 0;
        for p in first..pairs step clusters {
          let g0 = (p / group) * GM;
          let gm = min(m_pairs - g0, GM);
          let m0 = ((g0 + (p % group) % gm) * 2 + rank) * BM;
          let n0 = ((p % group) / gm) * BN;
          for k in 0..k_tiles {
            let s = (it / 8) % S;
            wait empty[s] parity((((it / 8) / S) & 1) ^ 1);
            arrive full[s] expect_tx((BM + BN) * BK * 2);
            tma.load a[s] <- A[m0, k * BK] signal(full[s]);
            tma.load b[s][rank * (BN / 2) +: BN / 2, :] <- B[n0 + rank * (BN / 2), k * BK] signal(full[s]) multicast(3);
            it += 8;
          }
        }
      }
    }
  }

  role math[2] = warpgroups(1..3) regs(232) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16>;
    var it: i32 = 0;
    var t: i64 = 0;
    for p in first..pairs step clusters {
      let g0 = (p / group) * GM;
      let gm = min(m_pairs - g0, GM);
      let m0 = ((g0 + (p % group) % gm) * 2 + rank) * BM;
      let n0 = ((p % group) / gm) * BN;
      acc = 0.0;
      for k in 0..k_tiles {
        let s = (it / 8) % S;
        wait full[s] parity(((it / 8) / S) & 1);
        wgmma.fence;
        wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
        wgmma.commit;
        wgmma.wait 1;                      // the previous k-tile's group is done: release its stage in both CTAs
        if k > 0 {
          elect {
            arrive empty[((it - 8) / 8) % S] cta(0);
            arrive empty[((it - 8) / 8) % S] cta(1);
          }
        }
        it += 8;
      }
      wgmma.wait 0;
      if (t / 8) % 8 != 7 {
        elect {
          arrive empty[((it - 8) / 8) % S] cta(0);
          arrive empty[((it - 8) / 8) % S] cta(1);
        }
      }
      t += 8;
      store C[m0 + 64 * math.index, n0] <- bf16(acc);
    }
  }

  cluster.sync;
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@52 E0611 {{deadlock: CTA 0: load waits forever on 'CTA 0: empty[3]' for phase 3 (p# = 9, k = 1, it = 152): it has completed 3 phases, and the current one has 0 of 16 arrivals}}
// expected-note@52 {{counterexample: loop 'k' runs 2 iterations, loop 'p' runs 10 iterations}}
// expected-note@75 {{CTA 0: math[0] waits forever on 'CTA 0: full[3]' for phase 4 (p# = 9, k = 1, it = 152, t = 72): it has completed 4 phases, and the current one has 0 of 1 arrivals}}
// expected-note@75 {{CTA 0: math[1] waits forever on 'CTA 0: full[3]' for phase 4 (p# = 9, k = 1, it = 152, t = 72): it has completed 4 phases, and the current one has 0 of 1 arrivals}}
// expected-note@52 {{CTA 1: load waits forever on 'CTA 1: empty[3]' for phase 3 (p# = 9, k = 1, it = 152): it has completed 3 phases, and the current one has 0 of 16 arrivals}}
// expected-note@75 {{CTA 1: math[0] waits forever on 'CTA 1: full[3]' for phase 4 (p# = 9, k = 1, it = 152, t = 72): it has completed 4 phases, and the current one has 0 of 1 arrivals}}
// expected-note@75 {{CTA 1: math[1] waits forever on 'CTA 1: full[3]' for phase 4 (p# = 9, k = 1, it = 152, t = 72): it has completed 4 phases, and the current one has 0 of 1 arrivals}}
// expected-note@23 {{'CTA 0: empty[3]' is declared here with arrivals(16)}}
