// RUN: %cakec --verify-only -D BN=128 -D S=4 %s 2>&1 | %FileCheck %s
// RUN: %cakec -D BN=128 -D S=4 %s --emit=ptx -o - | %FileCheck %s --check-prefix=PTX
// samples/hopper_gemm_tma_epilogue.cake with one named barrier per consumer warpgroup: barrier epi[2] and
// sync epi[math.index], so each warpgroup's epilogue waits only for its own 128 threads.  The barrier
// counts, the async-proxy ordering of the stmatrix writes before each instance's tma.store, and codegen
// (id 1 + math.index in a register) all follow the instance.
// CHECK: verified: {{[0-9]+}} obligations proven for sm_90a
// PTX-NOT: bar.sync 1, 256;
// PTX: bar.sync %r{{[0-9]+}}, 128;
// PTX: bar.sync %r{{[0-9]+}}, 128;
target sm_90a;

kernel hopper_gemm_tma_epilogue<BM = 128, BN = 256, BK = 64, S = 3, GM = 8>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN / 2, BK], swizzle=128B) align(16),
    C: bf16[M, N] tma(box=[64, BN], swizzle=none) align(16))
  requires(cdiv(M, 2 * BM) * cdiv(N, BN) * cdiv(K, BK) <= 2147483647, cdiv(M, 2 * BM) * cdiv(N, BN) <= 2147482623, GM * cdiv(N, BN) <= 2147483647, K % 8 == 0, N % 8 == 0, BM == 128, BK * 2 == 128, BN % 16 == 0, BN <= 256, S >= 2, GM >= 1)
  grid(num_sms / 2 * 2) threads(384) cluster(2)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(16);
  shared cs: bf16[2][64, BN] align(1024);   // epilogue staging: one 64 x BN box per consumer warpgroup
  barrier epi[2] id(1) threads(128);        // one per consumer warpgroup (ids 1, 2)

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
            let s = it % S;
            wait empty[s] parity(((it / S) & 1) ^ 1);
            arrive full[s] expect_tx((BM + BN) * BK * 2);
            tma.load a[s] <- A[m0, k * BK] signal(full[s]);
            tma.load b[s][rank * (BN / 2) +: BN / 2, :] <- B[n0 + rank * (BN / 2), k * BK] signal(full[s]) multicast(3);
            it += 1;
          }
        }
      }
    }
  }

  role math[2] = warpgroups(1..3) regs(232) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16>;
    var it: i32 = 0;
    for p in first..pairs step clusters {
      let g0 = (p / group) * GM;
      let gm = min(m_pairs - g0, GM);
      let m0 = ((g0 + (p % group) % gm) * 2 + rank) * BM;
      let n0 = ((p % group) / gm) * BN;
      acc = 0.0;
      for k in 0..k_tiles {
        let s = it % S;
        wait full[s] parity((it / S) & 1);
        wgmma.fence;
        wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
        wgmma.commit;
        wgmma.wait 1;                      // k-tile it-1's group is done: release its stage in both CTAs
        if k > 0 {
          elect {
            arrive empty[(it - 1) % S] cta(0);
            arrive empty[(it - 1) % S] cta(1);
          }
        }
        it += 1;
      }
      wgmma.wait 0;
      elect {
        arrive empty[(it - 1) % S] cta(0);
        arrive empty[(it - 1) % S] cta(1);
      }
      // Epilogue: accumulator -> shared (stmatrix) -> TMA store.
      if math.thread == 0 {
        tma.store.wait 0;                  // the previous tile's store has read cs[math.index]
      }
      sync epi[math.index];
      store cs[math.index][0, 0] <- bf16(acc);
      fence.proxy_async;                   // stmatrix writes (generic proxy) before the TMA read (async proxy)
      sync epi[math.index];
      if math.thread == 0 {
        tma.store C[m0 + 64 * math.index, n0] <- cs[math.index];
        tma.store.commit;
      }
    }
    if math.thread == 0 {
      tma.store.wait 0;                    // the last store has read its source before the block exits
    }
  }

  cluster.sync;
}
