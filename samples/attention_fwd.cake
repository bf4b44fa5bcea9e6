// attention_fwd: FlashAttention-style forward for sm_90a (H100 / H200), bf16 in and out, f32 softmax state:
//   O[b, h, i] = sum_j softmax_j(scale * Q[b, h, i] . K[b, h, j]) V[b, h, j],   scale = 1 / sqrt(D)
//   LSE[b, h, i] = ln sum_j exp(scale * Q[b, h, i] . K[b, h, j])           (natural log, for a backward pass)
// Q, K, V, O: bf16[B, H, T, D] row-major, D == HD (64 or 128); LSE: f32[B, H, T].  Causal (-D CAUSAL=1):
// key j <= query i (top-left aligned).  Any T (TMA zero fill of the K / V / Q tails, masked scores, masked
// stores).  The bench (bench/attention_bench.py) picks the cubin by CAUSAL and HD.
//
// Schedule
//   grid     (cdiv(T, BM), B * H) blocks of 384 threads, BM = 128 query rows of one (b, h) per block.
//   roles    load = warpgroup 0, regs(24): one elected thread loads the Q tile once (qfull) and then K and V
//            tiles j = 0 .. n_tiles - 1 (BN keys each) into stage j % S of the K / V rings (kfull[s] and
//            vfull[s] separately, so Q K^T of tile j starts before V_j has landed).
//            math[2] = warpgroups 1..2, regs(240): instance i owns query rows q0 + 64*i +: 64.  Per KV tile:
//              s   = Q K^T                       wgmma, 64 x BN f32 accumulator (A = Q from shared)
//              s   = s * scale * log2(e), masked: -inf where key >= T or (causal) key > query
//              mn  = max(m, rowmax(s));  p = ex2(s - mn);  c = ex2(m - mn)
//              l   = l * c + rowsum(p);  o = o * c (per-row rescale of the 64 x HD accumulator, in registers)
//              o  += bf16(p) * V         wgmma, A = P from registers (the f32 accumulator converted to the
//                                        bf16 A operand: K = BN, BN / 16 instructions), B = V [BN, HD]
//                                        row-major (the MN-major B operand: no transposed copy of V)
//            then releases the stage (empty[s]).  n_tiles = cdiv(T, BN), causal: cdiv(min(T, q0 + BM), BN).
//   barriers qfull (1 arrival, expect_tx BM * HD * 2); kfull[s] / vfull[s] (1 arrival, expect_tx BN * HD * 2
//            each); empty[s] (8 arrivals: every consumer warp).  KV tile j: stage s = j % S, full parities
//            (j / S) & 1, empty the opposite parity.
//   tiles    Q, K, V tiles [rows, HD] swizzle(128B): rows of HD bf16 are 1 or 2 swizzle spans, stored as
//            column blocks (docs/language.md, layouts); TMA loads the 64-wide column slices through rank-4
//            tensor maps whose box drops the unit B and H dims.
//   rows     no row is ever fully masked (key 0 is valid for every query row, causal or not), so m is finite
//            after the first tile and ex2(m - mn) never sees -inf - -inf.
//   overlap  PINGPONG = 1 (the default; 0 is the plain schedule above): the two consumers take turns on the tensor cores (FA3's ping-pong).  Iteration j
//            issues S_j = Q K_j^T and then O += P_{j-1} V_{j-1} (the previous tile's probabilities, kept in
//            registers as p) back to back inside a turn: `sync turn[i]` before, `arrive turn[1 - i]` after
//            (named barriers of 256 threads: the turn passes to the other consumer, whose softmax ran while
//            these GEMMs did).  Then wgmma.wait 0, release of stage j - 1, the softmax of S_j (o is
//            rescaled after P_{j-1} V_{j-1} has landed), and p = P_j.  After the loop: O += P_last V_last.
//            math[1] gives math[0] the first turn, and math[0] takes math[1]'s last hand-over after the
//            loop, so every sync meets one arrive.
//   epilog   o = o * rcp(l) per row; store O[b, h, q0 + 64*i, 0] <- bf16(o) (masked by T);
//            LSE = (m + lg2(l)) * ln 2 per row (store LSE[b, h, q0 + 64*i] <- lse, masked by T).
target sm_90a;

// One online-softmax step on the score tile sc (64 x BN, raw Q K^T) of keys c0 .. c0 + BN for query rows
// r0 ..: masks, the running max m and sum l, the rescale of the output o; sc becomes P (f32).
fn softmax_step(var sc: frag<wgmma_acc, f32, 64, BN, 16>, var m: frag<wgmma_row, f32, 64>,
                var l: frag<wgmma_row, f32, 64>, var o: frag<wgmma_acc, f32, 64, HD, 16>, c0: i32, r0: i32,
                scale_log2: f32) {
  sc = sc * scale_log2;
  sc = select(c0 + sc.col < T, sc, -inf);
  if CAUSAL == 1 {
    sc = select(c0 + sc.col <= r0 + sc.row, sc, -inf);
  }
  let mn = max(m, rowmax(sc));
  sc = ex2(sc - mn);
  let corr = ex2(m - mn);
  l = l * corr + rowsum(sc);
  o = o * corr;
  m = mn;
}

kernel attention_fwd<BM = 128, BN = 128, HD = 128, S = 2, CAUSAL = 0, PINGPONG = 1>(
    Q: bf16[B, H, T, D] tma(box=[1, 1, BM, 64], swizzle=128B) align(16),
    K: bf16[B, H, T, D] tma(box=[1, 1, BN, 64], swizzle=128B) align(16),
    V: bf16[B, H, T, D] tma(box=[1, 1, BN, 64], swizzle=128B) align(16),
    O: bf16[B, H, T, D] align(16),
    LSE: f32[B, H, T] align(16))
  requires(D == HD, HD % 64 == 0, HD <= 128, BM == 128, BN % 16 == 0, BN <= 256, S >= 2, CAUSAL >= 0,
           CAUSAL <= 1, PINGPONG >= 0, PINGPONG <= 1)
  grid(cdiv(T, BM), B * H) threads(384)
{
  shared qs: bf16[BM, HD] swizzle(128B) align(1024);
  shared ks: bf16[S][BN, HD] swizzle(128B) align(1024);
  shared vs: bf16[S][BN, HD] swizzle(128B) align(1024);
  mbarrier qfull[1] arrivals(1);
  mbarrier kfull[S] arrivals(1);
  mbarrier vfull[S] arrivals(1);
  mbarrier empty[S] arrivals(8);
  barrier turn[2] id(1) threads(256);        // PINGPONG: consumer i's turn on the tensor cores

  if tid.x == 0 {
    mbarrier.init qfull;
    mbarrier.init kfull;
    mbarrier.init vfull;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let q0 = i32(block.x) * BM;
  let b = i32(block.y) / H;
  let h = i32(block.y) % H;
  let n_tiles = cdiv(q0 + min(T - q0, BM * CAUSAL + T * (1 - CAUSAL)), BN);

  role load = warpgroup(0) regs(24) {
    if load.warp == 0 {
      elect {
        arrive qfull[0] expect_tx(BM * HD * 2);
        for c in 0..HD / 64 unroll {
          tma.load qs[:, 64 * c +: 64] <- Q[b, h, q0, 64 * c] signal(qfull[0]);
        }
        for j in 0..n_tiles {
          let s = j % S;
          wait empty[s] parity(((j / S) & 1) ^ 1);
          arrive kfull[s] expect_tx(BN * HD * 2);
          for c in 0..HD / 64 unroll {
            tma.load ks[s][:, 64 * c +: 64] <- K[b, h, j * BN, 64 * c] signal(kfull[s]);
          }
          arrive vfull[s] expect_tx(BN * HD * 2);
          for c in 0..HD / 64 unroll {
            tma.load vs[s][:, 64 * c +: 64] <- V[b, h, j * BN, 64 * c] signal(vfull[s]);
          }
        }
      }
    }
  }

  role math[2] = warpgroups(1..3) regs(240) {
    var o: frag<wgmma_acc, f32, 64, HD, 16> = 0.0;
    var sc: frag<wgmma_acc, f32, 64, BN, 16>;
    var m: frag<wgmma_row, f32, 64> = -inf;
    var l: frag<wgmma_row, f32, 64> = 0.0;
    let r0 = q0 + 64 * math.index;
    let scale_log2 = 1.4426950409 * rsqrt(f32(HD));
    wait qfull[0] parity(0);
    if PINGPONG == 0 {
      for j in 0..n_tiles {
        let s = j % S;
        wait kfull[s] parity((j / S) & 1);
        sc = 0.0;
        wgmma.fence;
        wgmma sc += qs[64 * math.index +: 64, :] * ks[s].T;
        wgmma.commit;
        wgmma.wait 0;
        softmax_step(sc, m, l, o, j * BN, r0, scale_log2);
        wait vfull[s] parity((j / S) & 1);
        wgmma.fence;
        wgmma o += bf16(sc) * vs[s];
        wgmma.commit;
        wgmma.wait 0;
        elect {
          arrive empty[s];
        }
      }
    } else {
      var p: frag<wgmma_acc, f32, 64, BN, 16>;
      if math.index == 1 {
        arrive turn[0];
      }
      for j in 0..n_tiles {
        let s = j % S;
        let sp = (j + S - 1) % S;                // the previous tile's stage
        wait kfull[s] parity((j / S) & 1);
        sync turn[math.index];
        sc = 0.0;
        wgmma.fence;
        wgmma sc += qs[64 * math.index +: 64, :] * ks[s].T;
        wgmma.commit;
        if j > 0 {
          wait vfull[sp] parity(((j - 1) / S) & 1);
          wgmma o += bf16(p) * vs[sp];
          wgmma.commit;
        }
        arrive turn[1 - math.index];
        wgmma.wait 0;
        if j > 0 {
          elect {
            arrive empty[sp];
          }
        }
        softmax_step(sc, m, l, o, j * BN, r0, scale_log2);
        p = sc;
      }
      if math.index == 0 {
        sync turn[0];                            // takes math[1]'s last hand-over
      }
      let sl = (n_tiles - 1) % S;
      wait vfull[sl] parity(((n_tiles - 1) / S) & 1);
      wgmma.fence;
      wgmma o += bf16(p) * vs[sl];
      wgmma.commit;
      wgmma.wait 0;
      elect {
        arrive empty[sl];
      }
    }
    o = o * rcp(l);
    store O[b, h, r0, 0] <- bf16(o);
    store LSE[b, h, r0] <- (m + lg2(l)) * 0.6931471806;
  }
}
