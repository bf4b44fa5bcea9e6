// gemm_bias_act: C = act(A * B^T + bias[n]) (bf16 in, f32 accumulation, f32 bias, bf16 out) for sm_90a
// (H100 / H200), act chosen at compile time: -D ACT=0 relu, 1 gelu (tanh approximation), 2 silu.
// A[M, K] row-major, B[N, K] row-major (K-major, "B^T"), bias[N] f32, C[M, N] row-major.  Any M, N (ragged
// edges included) with K % 8 == 0 (TMA needs 16-byte row strides) and N even (4-byte bf16-pair stores).
// The mainloop is samples/hopper_gemm_persistent.cake's unchanged; only the epilogue differs, and it works on
// the accumulator in registers (no shared-memory round trip of accumulator elements).
//
// Schedule
//   grid     num_sms / 2 * 2 persistent blocks of 384 threads in clusters of 2 (cluster(2)); a cluster owns a
//            pair of vertically adjacent BM x BN tiles with the same columns (CTA rank r: rows (2p + r) * BM)
//            and walks the pair indices c, c + clusters, ... grouped by GM m pairs (L2 reuse of A and B).
//   roles    load = warpgroup 0, regs(40): one elected thread issues all TMA copies; math[2] = warpgroups
//            1..2, regs(232): instance i computes rows 64*i +: 64 of the tile into a 64 x BN f32 wgmma
//            accumulator (BN / 2 = 128 registers per thread).
//   multicast CTA r loads B rows n0 + r*BN/2 +: BN/2 and multicasts them into stage s of both CTAs.
//   barriers full[s] (1 arrival, expect_tx (BM + BN) * BK * 2) and empty[s] (16 arrivals: every consumer warp
//            of both CTAs), k-tile number `it` counted across tiles: stage it % S, parity (it / S) & 1.
//   pipeline one wgmma group in flight (wgmma.wait 1); the producer runs up to S k-tiles ahead, across tile
//            boundaries, so the next tile's loads overlap this tile's epilogue.
//   init/exit thread 0 initialises the barriers, cluster.sync before any multicast; a final cluster.sync.
//   epilog   per element of the accumulator, in registers: x = acc + bias[n0 + acc.col] (a gather of the f32
//            bias at each element's column, masked by bias's dims: columns past N read 0 and are not stored),
//            then the activation:
//              relu  max(x, 0)
//              gelu  0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))       (tanh.approx.f32)
//              silu  x / (1 + 2^(-x log2 e))                                (ex2.approx, rcp.approx)
//            then bf16 and the masked store at the wgmma lane layout, as in the plain GEMM.
target sm_90a;

kernel gemm_bias_act<BM = 128, BN = 256, BK = 64, S = 4, GM = 8, ACT = 0>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN / 2, BK], swizzle=128B) align(16),
    bias: f32[N] align(16),
    C: bf16[M, N] align(16))
  requires(cdiv(M, 2 * BM) * cdiv(N, BN) <= 2147482623, cdiv(M, 2 * BM) * cdiv(N, BN) * cdiv(K, BK) <= 2147483647,
           GM * cdiv(N, BN) <= 2147483647, K % 8 == 0, N % 2 == 0, BM == 128, BK * 2 == 128, BN % 16 == 0, S >= 2, GM >= 1, ACT >= 0, ACT <= 2)
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
      acc = acc + bias[n0 + acc.col];      // f32 bias gathered at each element's column
      if ACT == 0 {
        acc = max(acc, 0.0);
      } else {
        if ACT == 1 {
          acc = 0.5 * acc * (1.0 + tanh(0.7978845608 * (acc + 0.044715 * acc * acc * acc)));
        } else {
          acc = acc * rcp(1.0 + ex2(acc * -1.4426950409));
        }
      }
      store C[m0 + 64 * math.index, n0] <- bf16(acc);
    }
  }

  cluster.sync;
}
