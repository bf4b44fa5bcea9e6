// kda_chunk_prep: the parallel half of the chunked KDA forward (kernel 1; fla's chunk_kda_fwd_intra + recompute_w_u):
// for every chunk of BT = 64 tokens and head h, independently, in f32:
//   activations   q, k <- L2-normalised (eps 1e-6 inside the root); g = the gate (SAFE = 1: lower_bound *
//                 sigmoid(exp(A_log) (g_raw + dt_bias)); SAFE = 0: -exp(A_log) softplus(g_raw + dt_bias));
//                 beta = sigmoid(beta_raw)
//   G             the inclusive cumsum of g over the chunk's tokens, per channel
//   L[r, s]       = beta_r sum_d k_rd k_sd e^(G_rd - G_sd)   (s < r)
//   P[r, s]       = scale sum_d q_rd k_sd e^(G_rd - G_sd)    (s <= r)
//   w, u          = (I + L)^-1 (beta e^G k), (I + L)^-1 (beta v)   (forward substitution)
//   qg = scale q e^G,  kg = k e^(G_last - G),  GL = e^(G_last)
// into the chunk-padded workspaces that kernels/kda/chunk_scan.cake reads (see there; bf16 except GL).  ROWS[p] is
// the token row of padded row p, or -1 past its sequence's end (such rows get q = k = g = beta = 0, so their
// w, u, qg, kg, P rows are 0 and G_last is the gate sum of the valid rows); it is read modulo TT.
//
// Exponents never exceed 0 where they are factored: for s in an earlier 16-token sub-chunk than r, with n the first
// row of r's sub-chunk, e^(G_r - G_s) = e^(G_r - G_n) e^(G_n - G_s), both factors <= 1 (G decreases along the
// chunk); pairs inside one sub-chunk take the exact e^(G_rd - G_sd) per channel.  So neither gate overflows.
//
// Schedule: grid (NCT, H) blocks of 256 threads.  1. thread (r = t / 4, quarter t % 4) loads 32 channels of token
// r's q, k, g (16-byte loads), the norms reduce over the 4 threads; q, k, g -> shared f32.  2. threads 0..127:
// the cumsum down channel t.  3. sub-chunks i = 1..3: the factored rows (e^(G_r - G_n) k_r, e^(G_r - G_n) q_r for
// r in sub-chunk i; e^(G_n - G_s) k_s for s < 16 i) -> shared, then the 16 x 16 i block of L and P, one dot
// product pair per thread; then the four diagonal 16 x 16 blocks with exact exponents.  4. thread t owns column
// t of the right-hand side [beta e^G k | beta v] (64 x 256) in registers and solves (I + L) x = rhs by forward
// substitution (L broadcast from shared); threads 0..127 also write qg, kg of channel t, threads 128..255 P.
target sm_90a;

fn sigmoid(x: f32) -> f32 {
  return rcp(1.0 + ex2(-1.4426950408889634 * x));
}

kernel kda_chunk_prep<BT = 64, KD = 128, VD = 128, SAFE = 1>(
    q: bf16[TT, H, KD] align(16),
    k: bf16[TT, H, KD] align(16),
    v: bf16[TT, H, VD],
    g: bf16[TT, H, KD] align(16),
    beta: bf16[TT, H],
    A_log: f32[H],
    dt_bias: f32[H, KD],
    ROWS: i32[TP],
    W: bf16[TP, HK],
    QG: bf16[TP, HK],
    KG: bf16[TP, HK],
    U: bf16[TP, HV],
    P: bf16[TP, HB],
    GL: f32[NCT, HK],
    scale: f32,
    lower_bound: f32)
  requires(BT == 64, KD == 128, VD == 128, HK == H * KD, HV == H * VD, HB == H * BT, TP == NCT * BT, TT >= 1,
           TP >= BT, TT < 268435456, TP < 268435456, H <= 4096, SAFE >= 0, SAFE <= 1)
  grid(NCT, H) threads(256)
{
  shared qs: f32[BT, KD + 1];                 // rows padded by one word: no bank conflicts down a column
  shared ks: f32[BT, KD + 1];
  shared gs: f32[BT, KD + 1];
  shared bs: f32[BT];
  shared sa: f32[16, KD + 1];                 // e^(G_r - G_n) k_r of the current sub-chunk
  shared sq: f32[16, KD + 1];                 // e^(G_r - G_n) q_r
  shared sb: f32[48, KD + 1];                 // e^(G_n - G_s) k_s, s < n
  shared ls: f32[BT, BT];
  shared pss: f32[BT, BT];

  let t = i32(tid.x);
  let ch = i32(block.x);
  let h = i32(block.y);
  let p0 = ch * BT;
  let log2e: f32 = 1.4426950408889634;

  // ---- 1. activations of token r, channels c0 .. c0 + 31
  {
    let r = t / 4;
    let c0 = (t % 4) * 32;
    let row = ROWS[p0 + r];
    let ok_row = row >= 0;
    let tok = i32(u32(row) % u32(TT));
    let a = ex2(A_log[h] * log2e);
    var qv: f32[32];
    var kv: f32[32];
    var sqq: f32 = 0.0;
    var skk: f32 = 0.0;
    for j in 0..4 unroll {
      let q8 = f32x8(q[tok, h, c0 + 8 * j +: 8]);
      let k8 = f32x8(k[tok, h, c0 + 8 * j +: 8]);
      let g8 = f32x8(g[tok, h, c0 + 8 * j +: 8]);
      for e in 0..8 unroll {
        qv[8 * j + e] = q8[e];
        kv[8 * j + e] = k8[e];
        sqq = fma(q8[e], q8[e], sqq);
        skk = fma(k8[e], k8[e], skk);
        let x = g8[e] + dt_bias[h, c0 + 8 * j + e];
        var gate: f32 = 0.0;
        if SAFE == 1 {
          gate = lower_bound * sigmoid(a * x);
        } else {
          gate = -a * select(x > 20.0, x, 0.6931471805599453 * lg2(1.0 + ex2(x * log2e)));
        }
        gs[r, c0 + 8 * j + e] = select(ok_row, gate, 0.0);
      }
    }
    sqq += shfl.xor(sqq, 1);
    sqq += shfl.xor(sqq, 2);
    skk += shfl.xor(skk, 1);
    skk += shfl.xor(skk, 2);
    let rq = select(ok_row, rsqrt(sqq + 1.0e-6), 0.0);
    let rk = select(ok_row, rsqrt(skk + 1.0e-6), 0.0);
    for e in 0..32 unroll {
      qs[r, c0 + e] = qv[e] * rq;
      ks[r, c0 + e] = kv[e] * rk;
    }
    if t % 4 == 0 {
      bs[r] = select(ok_row, sigmoid(f32(beta[tok, h])), 0.0);
    }
    // L and P start at 0 (their upper triangles stay 0)
    for m in 0..16 unroll {
      ls[(t + 256 * m) / BT, (t + 256 * m) % BT] = 0.0;
      pss[(t + 256 * m) / BT, (t + 256 * m) % BT] = 0.0;
    }
  }
  syncthreads;

  // ---- 2. G = cumsum of g down each channel; GL = e^(G_last)
  if t < KD {
    var acc: f32 = 0.0;
    for r in 0..BT unroll {
      acc += gs[r, t];
      gs[r, t] = acc;
    }
    GL[ch, h * KD + t] = ex2(acc * log2e);
  }
  syncthreads;

  // ---- 3. off-diagonal blocks, sub-chunk by sub-chunk (reference row n = 16 i)
  for i in 1..4 unroll {
    let n = 16 * i;
    for m in 0..8 unroll {                          // 16 rows x 128 channels of A and Q
      let e = t + 256 * m;
      let rr = e / KD;
      let d = e % KD;
      let f = ex2((gs[n + rr, d] - gs[n, d]) * log2e);
      sa[rr, d] = ks[n + rr, d] * f;
      sq[rr, d] = qs[n + rr, d] * f;
    }
    for m in 0..8 * i unroll {                      // 16 i rows x 128 channels of B
      let e = t + 256 * m;
      let s = e / KD;
      let d = e % KD;
      sb[s, d] = ks[s, d] * ex2((gs[n, d] - gs[s, d]) * log2e);
    }
    syncthreads;
    let rr = t / 16;
    for m in 0..i unroll {
      let s = t % 16 + 16 * m;
      var dl: f32 = 0.0;
      var dp: f32 = 0.0;
      for d in 0..KD unroll(8) {
        let b = sb[s, d];
        dl = fma(sa[rr, d], b, dl);
        dp = fma(sq[rr, d], b, dp);
      }
      ls[n + rr, s] = bs[n + rr] * dl;
      pss[n + rr, s] = scale * dp;
    }
    syncthreads;
  }

  // ---- the four diagonal 16 x 16 blocks, exact exponents (s <= r inside one sub-chunk)
  {
    let blk = t / 64;
    let rr = (t % 64) / 4;
    let r = 16 * blk + rr;
    for m in 0..4 unroll {
      let s = 16 * blk + t % 4 + 4 * m;
      if s <= r {
        var dl: f32 = 0.0;
        var dp: f32 = 0.0;
        for d in 0..KD unroll(8) {
          let f = ex2((gs[r, d] - gs[s, d]) * log2e) * ks[s, d];
          dl = fma(ks[r, d], f, dl);
          dp = fma(qs[r, d], f, dp);
        }
        if s < r {
          ls[r, s] = bs[r] * dl;
        }
        pss[r, s] = scale * dp;
      }
    }
  }
  syncthreads;

  // ---- 4. (I + L) x = [beta e^G k | beta v], column t; qg, kg (t < 128) and P (t >= 128)
  var x: f32[BT];
  let vc = t - KD;
  for r in 0..BT unroll {
    let row = ROWS[p0 + r];
    let tok = i32(u32(row) % u32(TT));
    var rhs: f32 = 0.0;
    if t < KD {
      rhs = bs[r] * ex2(gs[r, t] * log2e) * ks[r, t];
    } else {
      rhs = bs[r] * f32(v[tok, h, vc]);             // bs[r] = 0 on padded rows
    }
    var odd: f32 = 0.0;                             // two independent chains: half the dependent FMAs
    for s in 0..r unroll {
      if s % 2 == 0 {
        rhs = fma(-ls[r, s], x[s], rhs);
      } else {
        odd = fma(-ls[r, s], x[s], odd);
      }
    }
    rhs += odd;
    x[r] = rhs;
    if t < KD {
      W[p0 + r, h * KD + t] = bf16(rhs);
      let gl = gs[BT - 1, t];
      QG[p0 + r, h * KD + t] = bf16(scale * qs[r, t] * ex2(gs[r, t] * log2e));
      KG[p0 + r, h * KD + t] = bf16(ks[r, t] * ex2((gl - gs[r, t]) * log2e));
    } else {
      U[p0 + r, h * VD + vc] = bf16(rhs);
    }
  }
  if t >= KD {
    let pr = (t - KD) / 2;
    let pc = ((t - KD) % 2) * 32;
    for e in 0..32 unroll {
      P[p0 + pr, h * BT + pc + e] = bf16(pss[pr, pc + e]);
    }
  }
}
