// kda_chunk_prep_tc: kernels/kda/chunk_prep.cake (same interface, same workspaces, same math; read its header) with
// the intra-chunk products on the tensor cores and the UT inverse by 16 x 16 blocks:
//   L, P off-diagonal 16 x 16 blocks  mma.sync m16n8k16 on f16 operands built in shared memory, f32 sums:
//                 (k_r e^(G_r - G_n)) . (k_s e^(G_n - G_s)), (q_r e^(G_r - G_n)) . (k_s e^(G_n - G_s)), n = 16 i the
//                 first row of r's sub-chunk i, s < n.  Both exponents are <= 0 (G decreases along the chunk) and
//                 |k|, |q| <= 1 after the L2 norm, so every operand lies in [-1, 1]: no f16 overflow.
//   L, P diagonal blocks   exact exponents per channel in f32 SIMT (as chunk_prep.cake; no factoring, so safe for
//                 the unbounded gate too).
//   T = (I + L)^-1  f32 SIMT: the four diagonal blocks A_b = (I + L_bb)^-1 by forward substitution (64 threads),
//                 then the off-diagonal blocks by levels, T_ij = -A_i sum_{k=j}^{i-1} L_ik T_kj (fla chunk_intra's
//                 Ai10 = -Ai11 L10 Ai00, ...): 16 x 16 products, about 300 FMAs a thread in all.
//   w, u          = T (beta e^G k), T (beta v): mma.sync m16n8k16 on bf16 operands (T and the right-hand sides, as
//                 fla stores T in bf16), f32 sums; warp w: rows 16 (w % 4) .. +16, w / 4 = 0: w, 1: u.
// The torch model of these roundings is cakeir.kda.kernels.prepare_chunks_tc_model (tests/python/
// test_kda_chunk_prep_tc.py checks it against the float64 recurrence).
//
// Schedule: grid (NCT, H) blocks of 256 threads (8 warps).  1. activations (thread: token t / 4, 32 channels); raw
// q, k -> shared bf16 (exact) with their row norms.  2. cumsum of g per channel; GL.  3. the f16 factored operands,
// the bf16 right-hand sides [beta e^G k | beta v], QG, KG, the diagonal blocks of L (-> shared) and P (-> global),
// P's upper blocks = 0.  4. per warp 3 of the 24 (L | P) x 16-row x 8-column off-diagonal tiles, 8 k-steps each.
// 5. the block inverse; T -> bf16.  6. w, u: per warp 16 rows x 128 columns, 4 k-steps x 16 mma.sync.
target sm_90a;

fn sigmoid(x: f32) -> f32 {
  return rcp(1.0 + ex2(-1.4426950408889634 * x));
}

kernel kda_chunk_prep_tc<BT = 64, KD = 128, VD = 128, SAFE = 1>(
    q: bf16[TT, H, KD] align(16),
    k: bf16[TT, H, KD] align(16),
    v: bf16[TT, H, VD] align(16),
    g: bf16[TT, H, KD] align(16),
    beta: bf16[TT, H],
    A_log: f32[H],
    dt_bias: f32[H, KD],
    ROWS: i32[TP],
    W: bf16[TP, HK],
    QG: bf16[TP, HK] align(16),
    KG: bf16[TP, HK] align(16),
    U: bf16[TP, HV],
    P: bf16[TP, HB],
    GL: f32[NCT, HK],
    scale: f32,
    lower_bound: f32)
  requires(BT == 64, KD == 128, VD == 128, HK == H * KD, HV == H * VD, HB == H * BT, TP == NCT * BT, TT >= 1,
           TP >= BT, TT < 268435456, TP < 268435456, H <= 4096, SAFE >= 0, SAFE <= 1)
  grid(NCT, H) threads(256)
{
  shared qs: bf16[BT, KD + 8];                // raw q, k (bf16, exact); the norms apart
  shared ks: bf16[BT, KD + 8];
  shared rq: f32[BT];                         // 1 / |q_r|, 1 / |k_r| (0 on padded rows)
  shared rk: f32[BT];
  shared gs: f32[BT, KD + 4];                 // g, then G (rows 16-byte aligned: vector loads)
  shared bs: f32[BT];
  shared fa: f16[2][48, KD + 8];              // [0]: k_r e^(G_r - G_n), [1]: q_r e^(G_r - G_n); row r - 16, r = 16..63
  shared fb: f16[96, KD + 8];                 // k_s e^(G_n - G_s), n = 16 i: row 8 (i - 1) i + s, s < 16 i
  shared ls: f32[BT, BT + 4];                 // L, strictly lower (beta_r included)
  shared ti: f32[BT, BT + 4];                 // T = (I + L)^-1, lower blocks
  shared ms: f32[3][16, 17];                  // the block merges' partial products
  shared tb: bf16[BT, BT + 8];                // T, bf16, upper blocks 0
  shared rb: bf16[BT, KD + VD + 8];           // [beta e^G k | beta v]

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
    var sqq: f32 = 0.0;
    var skk: f32 = 0.0;
    for j in 0..4 unroll {
      let qraw = q[tok, h, c0 + 8 * j +: 8];
      let kraw = k[tok, h, c0 + 8 * j +: 8];
      qs[r, c0 + 8 * j +: 8] = qraw;
      ks[r, c0 + 8 * j +: 8] = kraw;
      let q8 = f32x8(qraw);
      let k8 = f32x8(kraw);
      let g8 = f32x8(g[tok, h, c0 + 8 * j +: 8]);
      var gv: f32x8;
      for e in 0..8 unroll {
        sqq = fma(q8[e], q8[e], sqq);
        skk = fma(k8[e], k8[e], skk);
        let x = g8[e] + dt_bias[h, c0 + 8 * j + e];
        var gate: f32 = 0.0;
        if SAFE == 1 {
          gate = lower_bound * sigmoid(a * x);
        } else {
          gate = -a * select(x > 20.0, x, 0.6931471805599453 * lg2(1.0 + ex2(x * log2e)));
        }
        gv[e] = select(ok_row, gate, 0.0);
      }
      gs[r, c0 + 8 * j +: 8] = gv;
    }
    sqq += shfl.xor(sqq, 1);
    sqq += shfl.xor(sqq, 2);
    skk += shfl.xor(skk, 1);
    skk += shfl.xor(skk, 2);
    if t % 4 == 0 {
      rq[r] = select(ok_row, rsqrt(sqq + 1.0e-6), 0.0);
      rk[r] = select(ok_row, rsqrt(skk + 1.0e-6), 0.0);
      bs[r] = select(ok_row, sigmoid(f32(beta[tok, h])), 0.0);
    }
  }
  syncthreads;

  // ---- 2. G = cumsum of g down each channel (thread: channel t % 128, rows 32 (t / 128) .. +32, the prefix in
  // registers; then the second half adds the first half's total); GL = e^(G_last)
  {
    let c = t % KD;
    let r0 = 32 * (t / KD);
    var x: f32[32];
    for r in 0..32 unroll {
      x[r] = gs[r0 + r, c];
    }
    for r in 1..32 unroll {
      x[r] += x[r - 1];
    }
    for r in 0..32 unroll {
      gs[r0 + r, c] = x[r];
    }
  }
  syncthreads;
  if t >= KD {
    let c = t - KD;
    let base = gs[31, c];
    for r in 32..BT unroll {
      gs[r, c] = gs[r, c] + base;
    }
    GL[ch, h * KD + c] = ex2(gs[BT - 1, c] * log2e);      // this thread wrote it just above
  }
  syncthreads;

  // ---- 3a. the factored f16 operands of the off-diagonal blocks, 8 channels a thread and step
  for m in 0..3 unroll {                            // 48 rows x 16 groups of fa
    let e = t + 256 * m;
    let rr = e / 16;
    let d = (e % 16) * 8;
    let r = 16 + rr;
    let n = 16 * (r / 16);
    let g8 = gs[r, d +: 8];
    let n8 = gs[n, d +: 8];
    let k8 = f32x8(ks[r, d +: 8]);
    let q8 = f32x8(qs[r, d +: 8]);
    let kr = rk[r];
    let qr = rq[r];
    var a8: f32x8;
    var b8: f32x8;
    for j in 0..8 unroll {
      let f = ex2((g8[j] - n8[j]) * log2e);
      a8[j] = k8[j] * kr * f;
      b8[j] = q8[j] * qr * f;
    }
    fa[0][rr, d +: 8] = f16x8(a8);
    fa[1][rr, d +: 8] = f16x8(b8);
  }
  for m in 0..6 unroll {                            // 96 rows x 16 groups of fb (m < 1: i = 1; < 3: 2; else 3)
    let e = t + 256 * m;
    let row = e / 16;
    let d = (e % 16) * 8;
    let i = select(m < 1, 1, select(m < 3, 2, 3));
    let sr = row - 8 * (i - 1) * i;
    let n = 16 * i;
    let g8 = gs[sr, d +: 8];
    let n8 = gs[n, d +: 8];
    let k8 = f32x8(ks[sr, d +: 8]);
    let kr = rk[sr];
    var b8: f32x8;
    for j in 0..8 unroll {
      b8[j] = k8[j] * kr * ex2((n8[j] - g8[j]) * log2e);
    }
    fb[row, d +: 8] = f16x8(b8);
  }
  // ---- 3b. right-hand sides (bf16), QG, KG; row r = e / 16, channels c .. c + 7 (16-byte accesses)
  for m in 0..4 unroll {
    let e = t + 256 * m;
    let r = e / 16;
    let c = (e % 16) * 8;
    let row = ROWS[p0 + r];
    let tok = i32(u32(row) % u32(TT));
    let g8 = gs[r, c +: 8];
    let l8 = gs[BT - 1, c +: 8];
    let k8 = f32x8(ks[r, c +: 8]);
    let q8 = f32x8(qs[r, c +: 8]);
    let v8 = f32x8(v[tok, h, c +: 8]);
    let kr = rk[r];
    let qr = rq[r];
    let br = bs[r];                                 // 0 on padded rows
    var wk: f32x8;
    var wv: f32x8;
    var qg: f32x8;
    var kg: f32x8;
    for j in 0..8 unroll {
      let eg = ex2(g8[j] * log2e);
      let kn = k8[j] * kr;
      wk[j] = br * eg * kn;
      wv[j] = br * v8[j];
      qg[j] = scale * q8[j] * qr * eg;
      kg[j] = kn * ex2((l8[j] - g8[j]) * log2e);
    }
    rb[r, c +: 8] = bf16x8(wk);
    rb[r, KD + c +: 8] = bf16x8(wv);
    QG[p0 + r, h * KD + c +: 8] = bf16x8(qg);
    KG[p0 + r, h * KD + c +: 8] = bf16x8(kg);
  }
  // ---- 3c. the four diagonal 16 x 16 blocks, exact exponents (s <= r inside one sub-chunk).  Thread (block t / 64,
  // ri = (t % 64) / 8, si = t % 8) owns the 2 x 2 entries rows r0 = 16 b + ri, r1 = r0 + 8, columns s0 = 16 b + si,
  // s1 = s0 + 8: (r1, s0) is always below the diagonal, (r0, s0) and (r1, s1) when si <= ri, (r0, s1) never.  Four
  // channels per step from 16- and 8-byte shared loads.
  {
    let blk = t / 64;
    let ri = (t % 64) / 8;
    let si = t % 8;
    let r0 = 16 * blk + ri;
    let r1 = r0 + 8;
    let s0 = 16 * blk + si;
    let s1 = s0 + 8;
    var la: f32 = 0.0;
    var lb: f32 = 0.0;
    var lc: f32 = 0.0;
    var pa: f32 = 0.0;
    var pb: f32 = 0.0;
    var pc: f32 = 0.0;
    for dq in 0..KD / 4 unroll(2) {
      let d = 4 * dq;
      let gr0 = gs[r0, d +: 4];
      let gr1 = gs[r1, d +: 4];
      let gs0 = gs[s0, d +: 4];
      let gs1 = gs[s1, d +: 4];
      let kr0 = f32x4(ks[r0, d +: 4]);
      let kr1 = f32x4(ks[r1, d +: 4]);
      let ks0 = f32x4(ks[s0, d +: 4]);
      let ks1 = f32x4(ks[s1, d +: 4]);
      let qr0 = f32x4(qs[r0, d +: 4]);
      let qr1 = f32x4(qs[r1, d +: 4]);
      for e in 0..4 unroll {
        let xa = ex2(min(gr0[e] - gs0[e], 0.0) * log2e) * ks0[e];   // min: the masked pairs never overflow
        let xb = ex2((gr1[e] - gs0[e]) * log2e) * ks0[e];
        let xc = ex2(min(gr1[e] - gs1[e], 0.0) * log2e) * ks1[e];
        la = fma(kr0[e], xa, la);
        pa = fma(qr0[e], xa, pa);
        lb = fma(kr1[e], xb, lb);
        pb = fma(qr1[e], xb, pb);
        lc = fma(kr1[e], xc, lc);
        pc = fma(qr1[e], xc, pc);
      }
    }
    let below = si <= ri;
    if si < ri {
      ls[r0, s0] = bs[r0] * rk[r0] * rk[s0] * la;
      ls[r1, s1] = bs[r1] * rk[r1] * rk[s1] * lc;
    }
    ls[r1, s0] = bs[r1] * rk[r1] * rk[s0] * lb;
    P[p0 + r0, h * BT + s0] = bf16(select(below, scale * rq[r0] * rk[s0] * pa, 0.0));
    P[p0 + r0, h * BT + s1] = bf16(0.0);
    P[p0 + r1, h * BT + s0] = bf16(scale * rq[r1] * rk[s0] * pb);
    P[p0 + r1, h * BT + s1] = bf16(select(below, scale * rq[r1] * rk[s1] * pc, 0.0));
    let pr = t / 4;                                 // row pr, column block t % 4: zero when above the diagonal
    let cb = t % 4;
    if cb > pr / 16 {
      for e in 0..16 unroll {
        P[p0 + pr, h * BT + 16 * cb + e] = bf16(0.0);
      }
    }
  }
  syncthreads;

  // ---- 4. off-diagonal tiles: tile tau = 3 warp + m of 24: typ = tau / 12 (0: L, 1: P); rest = tau % 12 names
  // sub-chunk i (rest < 2: 1, < 6: 2, else 3) and the 8-column tile nt < 2 i of columns 0 .. 16 i
  for m in 0..3 unroll {
    let tau = 3 * warp + m;
    let typ = tau / 12;
    let rest = tau % 12;
    let i = 1 + select(rest >= 2, 1, 0) + select(rest >= 6, 1, 0);
    let nt = rest - select(i == 1, 0, select(i == 2, 2, 6));
    let base = 8 * (i - 1) * i;
    var acc: frag<mma_c, f32, 16, 8, 16> = 0.0;
    for kk in 0..KD / 16 unroll {
      var af: frag<mma_a, f16, 16, 8, 16>;
      var bfr: frag<mma_b, f16, 16, 8, 16>;
      ldmatrix af <- fa[typ][16 * (i - 1) + lane % 16, 16 * kk + (lane / 16) * 8 +: 8];
      ldmatrix bfr <- fb[base + 8 * nt + lane % 8, 16 * kk + ((lane / 8) % 2) * 8 +: 8];
      mma.sync acc += af * bfr;
    }
    if typ == 0 {
      store ls[16 * i, 8 * nt] <- acc * bs[16 * i + acc.row];
    } else {
      store P[p0 + 16 * i, h * BT + 8 * nt] <- bf16(acc * scale);
    }
  }
  syncthreads;

  // ---- 5. T = (I + L)^-1.  Diagonal blocks: thread (b = t / 16, column c = t % 16), forward substitution
  if t < 64 {
    let b = t / 16;
    let c = t % 16;
    var x: f32[16];
    for r in 0..16 unroll {
      var acc: f32 = select(r == c, 1.0, 0.0);
      for s in 0..r unroll {
        acc = fma(-ls[16 * b + r, 16 * b + s], x[s], acc);
      }
      x[r] = acc;
      ti[16 * b + r, 16 * b + c] = acc;
    }
  }
  syncthreads;
  // off-diagonal blocks, level d = i - j: M = sum_{sigma in 16 j .. 16 i} L[16 i + r, sigma] T[sigma, 16 j + c], then
  // T_ij = -A_i M; thread (r = t / 16, c = t % 16) of every block of the level
  for d in 1..4 unroll {
    let r = t / 16;
    let c = t % 16;
    for j in 0..4 - d unroll {
      let i = j + d;
      var acc: f32 = 0.0;
      for sg in 16 * j..16 * i unroll {
        acc = fma(ls[16 * i + r, sg], ti[sg, 16 * j + c], acc);
      }
      ms[j][r, c] = acc;
    }
    syncthreads;
    for j in 0..4 - d unroll {
      let i = j + d;
      var acc: f32 = 0.0;
      for s in 0..16 unroll {
        acc = fma(ti[16 * i + r, 16 * i + s], ms[j][s, c], acc);
      }
      ti[16 * i + r, 16 * j + c] = -acc;
    }
    syncthreads;
  }
  for m in 0..16 unroll {                           // T -> bf16, upper blocks 0
    let e = t + 256 * m;
    let r = e / BT;
    let s = e % BT;
    var x: f32 = 0.0;
    if s / 16 <= r / 16 {
      x = ti[r, s];
    }
    tb[r, s] = bf16(x);
  }
  syncthreads;

  // ---- 6. [w | u] = T [beta e^G k | beta v]: warp: rows 16 mi .. +16, columns 128 half .. +128
  {
    let mi = warp % 4;
    let half = warp / 4;
    var acc: frag<mma_c, f32, 16, 8, 16>[16] = 0.0;
    for kk in 0..BT / 16 unroll {
      var af: frag<mma_a, bf16, 16, 8, 16>;
      var bfr: frag<mma_b, bf16, 16, 8, 16>[16];
      ldmatrix af <- tb[16 * mi + lane % 16, 16 * kk + (lane / 16) * 8 +: 8];
      for j in 0..16 step 2 unroll {
        ldmatrix.trans bfr[j], bfr[j + 1] <- rb[16 * kk + lane % 16, KD * half + 8 * j + (lane / 16) * 8 +: 8];
      }
      for j in 0..16 unroll {
        mma.sync acc[j] += af * bfr[j];
      }
    }
    if half == 0 {
      for j in 0..16 unroll {
        store W[p0 + 16 * mi, h * KD + 8 * j] <- bf16(acc[j]);
      }
    } else {
      for j in 0..16 unroll {
        store U[p0 + 16 * mi, h * VD + 8 * j] <- bf16(acc[j]);
      }
    }
  }
}
