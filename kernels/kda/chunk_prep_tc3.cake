// kda_chunk_prep_tc3: the parallel half of the chunked KDA forward for the safe gate (g >= lower_bound >= -5), with
// every entry of L and P on the tensor cores.  Same interface, workspaces and math as kernels/kda/chunk_prep_tc.cake
// (read its header); what differs is how the intra-chunk products are formed:
//   L[r, s] = beta_r sum_d k_r[d] k_s[d] e^(G_r[d] - G_s[d])  (s < r),   P[r, s] = scale sum_d q_r[d] k_s[d] e^(...)  (s <= r)
// for the rows r of sub-chunk I (16 I .. 16 I + 15) are factored through that sub-chunk's middle row m = 16 I + 8:
//   e^(G_r - G_s) = e^(G_r - G_m) e^(G_m - G_s).
// With the safe gate each token lowers G by at most 5, so e^(G_r - G_m) lies in [e^-35, e^40] and e^(G_m - G_s) in
// [e^-40, e^35] for s inside the sub-chunk and in [0, 1] for s before it (underflowing only where the product is
// below e^-47): both fit tf32's 8-bit exponent, and each 16 x 8 tile of L and P is a sum of mma.sync m16n8k8 tf32
// products over the 128 channels (10-bit mantissas as chunk_prep_tc2's f16 off-diagonal operands, f32 sums), with
// no operands staged in shared memory: each thread builds its fragment elements from G (f32) and raw q, k (bf16)
// in shared memory.  The elements are truncated to tf32 (tf32.rz: no conversion instruction; the forward's o error
// against the float64 recurrence 3.34e-3, against 3.27e-3 rounded to nearest: bench/results/2026-12-06-kda-experiments/).  The 1 / |q_r|, 1 / |k_s|, beta_r and scale factors are applied to the accumulators.
// The channel order inside a pair of k-steps is free (both operands use the same one): thread (g, q) of k-steps
// 2 p and 2 p + 1 takes channels 16 p + 4 q .. +4, so that G, q and k are read as 16- and 8-byte vectors.
// Tiles: sub-chunk I has 2 (I + 1) 8-column tiles (columns 0 .. 16 I + 15), 20 in all; warp w takes three tiles of
// one sub-chunk (I = 3, 3, 3, 2, 2, 1, 1, 0; first tile 0, 3, 6, 0, 3, 0, 3, 0), so that it builds one A operand;
// four of the 24 slots are past the sub-chunk's last tile and do nothing (a warp-uniform branch).
// The unbounded gate keeps chunk_prep_tc2.cake (exact exponents per pair on the diagonal blocks).
// G is kept in log2 units (the gate is scaled by log2 e as it is computed), so every e^x is one ex2.
// v is copied to shared memory with cp.async as the kernel starts (its global latency hidden behind phases 1 - 3).
// Phases (barriers between them): 1. activations -> xb (raw q | raw k), fbuf (g), norms, beta.  2. G = cumsum; GL.
// 3. L and P tiles (registers); P -> global (and 0 right of the sub-chunk's tiles).  4. QG, KG -> global and
// [beta e^G k | beta v] -> xb in place.  5. L -> fbuf columns 0 .. 63 (G is dead).  6. T = (I + L)^-1 by 16 x 16
// blocks, T -> bf16.  7. [w | u] = T [beta e^G k | beta v], staged in xb.  8. w, u -> global in 16-byte row segments.
// Row pitches: fbuf 144 words (rows 16 banks apart: the (g, q) fragment-order loads of phase 3 and the 16-byte
// stores of phase 1 are conflict-free), vs 320 bytes (the 64-byte row pieces of two rows in distinct banks).
// Shared memory 102.5 KB, 107 registers: two blocks per SM.
target sm_90a;

fn sigmoid(x: f32) -> f32 {
  return rcp.ftz(1.0 + ex2.ftz(-1.4426950408889634 * x));
}

kernel kda_chunk_prep_tc3<BT = 64, KD = 128, VD = 128>(
    q: bf16[TT, H, KD] align(16),
    k: bf16[TT, H, KD] align(16),
    v: bf16[TT, H, VD] align(16),
    g: bf16[TT, H, KD] align(16),
    beta: bf16[TT, H],
    A_log: f32[H],
    dt_bias: f32[H, KD] align(16),
    ROWS: i32[TP],
    W: bf16[TP, HK] align(16),
    QG: bf16[TP, HK] align(16),
    KG: bf16[TP, HK] align(16),
    U: bf16[TP, HV] align(16),
    P: bf16[TP, HB] align(16),
    GL: f32[NCT, HK],
    scale: f32,
    lower_bound: f32)
  requires(BT == 64, KD == 128, VD == 128, HK == H * KD, HV == H * VD, HB == H * BT, TP == NCT * BT, TT >= 1,
           TP >= BT, TT < 268435456, TP < 268435456, H <= 4096)
  grid(NCT, H) threads(256)
{
  shared xb: bf16[BT, KD + VD + 8];           // raw q (columns 0 ..), raw k (KD ..); then [beta e^G k | beta v]
  shared rq: f32[BT];                         // 1 / |q_r|, 1 / |k_r| (0 on padded rows)
  shared rk: f32[BT];
  shared bs: f32[BT];
  shared fbuf: f32[BT, KD + 16];              // g, then G (both times log2 e); then L (columns 0 .. BT), T (BT ..)
  shared ms: f32[3][16, 20];                  // the block merges' partial products (rows 16-byte aligned)
  shared vs: bf16[BT, VD + 32] align(16);     // v, copied asynchronously from the start (read in phase 4)
  shared tb: bf16[BT, BT + 8];                // T, bf16, upper blocks 0

  let t = i32(tid.x);
  let ch = i32(block.x);
  let h = i32(block.y);
  let p0 = ch * BT;
  let log2e: f32 = 1.4426950408889634;

  // ---- 1. activations of token r: thread d = t % 4 of the row takes the 16-byte pieces 8 d + 32 j of q, k, v and
  // the 8-byte pieces 4 d + 16 j of g, so that the four threads of a row read whole 32-byte sectors and the
  // shared stores of two rows fall in distinct banks
  {
    let r = t / 4;
    let d = t % 4;
    let row = ROWS[p0 + r];
    let ok_row = row >= 0;
    let tok = i32(u32(row) % u32(TT));
    let braw = beta[tok, h];                        // loaded with q, k, g: its latency is not exposed at the end
    for j in 0..4 unroll {
      cp.async vs[r, 8 * d + 32 * j +: 8] <- v[tok, h, 8 * d + 32 * j +: 8];
    }
    cp.async.commit;
    let a = ex2.ftz(A_log[h] * log2e);
    let lb2 = lower_bound * log2e;                  // the gate in log2 units: G below is log2 e^G
    var sqq: f32 = 0.0;
    var skk: f32 = 0.0;
    for j in 0..4 unroll {
      let c = 8 * d + 32 * j;
      let qraw = q[tok, h, c +: 8];
      let kraw = k[tok, h, c +: 8];
      xb[r, c +: 8] = qraw;
      xb[r, KD + c +: 8] = kraw;
      let q8 = f32x8(qraw);
      let k8 = f32x8(kraw);
      for e in 0..8 unroll {
        sqq = fma(q8[e], q8[e], sqq);
        skk = fma(k8[e], k8[e], skk);
      }
    }
    for j in 0..8 unroll {
      let c = 4 * d + 16 * j;
      let g4 = f32x4(g[tok, h, c +: 4]);
      let d4 = dt_bias[h, c +: 4];
      var gv: f32x4;
      for e in 0..4 unroll {
        let x = g4[e] + d4[e];
        gv[e] = select(ok_row, lb2 * sigmoid(a * x), 0.0);
      }
      fbuf[r, c +: 4] = gv;
    }
    sqq += shfl.xor(sqq, 1);
    sqq += shfl.xor(sqq, 2);
    skk += shfl.xor(skk, 1);
    skk += shfl.xor(skk, 2);
    if d == 0 {
      rq[r] = select(ok_row, rsqrt.ftz(sqq + 1.0e-6), 0.0);
      rk[r] = select(ok_row, rsqrt.ftz(skk + 1.0e-6), 0.0);
      bs[r] = select(ok_row, sigmoid(f32(braw)), 0.0);
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
      x[r] = fbuf[r0 + r, c];
    }
    for r in 1..32 unroll {
      x[r] += x[r - 1];
    }
    for r in 0..32 unroll {
      fbuf[r0 + r, c] = x[r];
    }
  }
  syncthreads;
  if t >= KD {
    let c = t - KD;
    let base = fbuf[31, c];
    for r in 32..BT unroll {
      fbuf[r, c] = fbuf[r, c] + base;
    }
    GL[ch, h * KD + c] = ex2.ftz(fbuf[BT - 1, c]);    // this thread wrote it just above
  }
  syncthreads;

  // ---- 3. L and P tiles of sub-chunk si, 8-column tiles nt0 .. nt0 + 2 (the ones past 2 si + 1 not stored)
  let si = 3 - select(warp >= 3, 1, 0) - select(warp >= 5, 1, 0) - select(warp >= 7, 1, 0);
  let nt0 = 3 * (warp - select(si == 3, 0, select(si == 2, 3, select(si == 1, 5, 7))));
  let gq = i32(lane) / 4;
  let qq = i32(lane) % 4;
  var accl: frag<mma_c, f32, 16, 8, 8>[3] = 0.0;
  var accp: frag<mma_c, f32, 16, 8, 8>[3] = 0.0;
  {
    let ra = 16 * si + gq;                          // the A rows of this thread: ra, ra + 8
    let mr = 16 * si + 8;
    for pc in 0..KD / 16 unroll {
      let c = 16 * pc + 4 * qq;                     // channels c .. c + 3: k-step 2 pc (k q, q + 4), 2 pc + 1 (same)
      let gm = fbuf[mr, c +: 4];
      let g0 = fbuf[ra, c +: 4];
      let g1 = fbuf[ra + 8, c +: 4];
      let k0 = f32x4(xb[ra, KD + c +: 4]);
      let k1 = f32x4(xb[ra + 8, KD + c +: 4]);
      let q0 = f32x4(xb[ra, c +: 4]);
      let q1 = f32x4(xb[ra + 8, c +: 4]);
      var ak: frag<mma_a, tf32, 16, 8, 8>[2];
      var aq: frag<mma_a, tf32, 16, 8, 8>[2];
      for e in 0..4 unroll {                        // element (row g + 8 (e % 2), k q + 4 (e / 2)) of each k-step
        let x0 = ex2.ftz(g0[e] - gm[e]);
        let x1 = ex2.ftz(g1[e] - gm[e]);
        ak[e / 2][2 * (e % 2)] = tf32.rz(k0[e] * x0);
        ak[e / 2][2 * (e % 2) + 1] = tf32.rz(k1[e] * x1);
        aq[e / 2][2 * (e % 2)] = tf32.rz(q0[e] * x0);
        aq[e / 2][2 * (e % 2) + 1] = tf32.rz(q1[e] * x1);
      }
      for m in 0..3 unroll {
        if nt0 + m <= 2 * si + 1 {                  // warp-uniform: the slots past the last tile do nothing
          let s = 8 * (nt0 + m) + gq;               // the B column of this thread
          let gs = fbuf[s, c +: 4];
          let ks = f32x4(xb[s, KD + c +: 4]);
          var b: frag<mma_b, tf32, 16, 8, 8>[2];
          for e in 0..4 unroll {
            b[e / 2][e % 2] = tf32.rz(ks[e] * ex2.ftz(gm[e] - gs[e]));
          }
          for st in 0..2 unroll {
            mma.sync accl[m] += ak[st] * b[st];
            mma.sync accp[m] += aq[st] * b[st];
          }
        }
      }
    }
    for m in 0..3 unroll {
      let nt = nt0 + m;
      if nt <= 2 * si + 1 {
        let r = 16 * si + accp[m].row;
        let s = 8 * nt + accp[m].col;
        store P[p0 + 16 * si, h * BT + 8 * nt] <- bf16(select(s <= r, accp[m] * (scale * rq[r] * rk[s]), 0.0));
      }
    }
    let pr = t / 4;                                 // row pr, columns 16 cb +: 16: 0 right of its sub-chunk
    let cb = t % 4;
    if cb > pr / 16 {
      let z = f32x8(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
      P[p0 + pr, h * BT + 16 * cb +: 8] = bf16x8(z);
      P[p0 + pr, h * BT + 16 * cb + 8 +: 8] = bf16x8(z);
    }
  }
  cp.async.wait 0;                                  // v (phase 1's copies) -> vs, published by the barrier
  syncthreads;

  // ---- 4. QG, KG -> global; [beta e^G k | beta v] into xb in place (row r = e / 16, channels c and c + 64, c = 4 (e %
  // 16): a quarter warp reads 128 contiguous bytes of a row; each thread reads its own q, k slices, which nobody
  // else reads any more, and writes its two slices)
  for m in 0..4 unroll {
    let e = t + 256 * m;
    let r = e / 16;
    let kr = rk[r];
    let qr = rq[r];
    let br = bs[r];                                 // 0 on padded rows
    for half in 0..2 unroll {
      let c = (e % 16) * 4 + 64 * half;
      let g4 = fbuf[r, c +: 4];
      let l4 = fbuf[BT - 1, c +: 4];
      let k4 = f32x4(xb[r, KD + c +: 4]);
      let q4 = f32x4(xb[r, c +: 4]);
      let v4 = f32x4(vs[r, c +: 4]);
      var qg: f32x4;
      var kg: f32x4;
      var wk: f32x4;
      var wv: f32x4;
      for j in 0..4 unroll {
        let kn = k4[j] * kr;
        let eg = ex2.ftz(g4[j]);
        qg[j] = scale * q4[j] * qr * eg;
        kg[j] = kn * ex2.ftz(l4[j] - g4[j]);
        wk[j] = br * eg * kn;
        wv[j] = br * v4[j];
      }
      QG[p0 + r, h * KD + c +: 4] = bf16x4(qg);
      KG[p0 + r, h * KD + c +: 4] = bf16x4(kg);
      xb[r, c +: 4] = bf16x4(wk);
      xb[r, KD + c +: 4] = bf16x4(wv);
    }
  }
  syncthreads;

  // ---- 5. L -> fbuf columns 0 .. BT (strictly lower; 0 on and above the diagonal of the diagonal blocks)
  for m in 0..3 unroll {
    let nt = nt0 + m;
    if nt <= 2 * si + 1 {
      let r = 16 * si + accl[m].row;
      let s = 8 * nt + accl[m].col;
      store fbuf[16 * si, 8 * nt] <- select(s < r, accl[m] * (bs[r] * rk[r] * rk[s]), 0.0);
    }
  }
  syncthreads;

  // ---- 6. T = (I + L)^-1 in fbuf columns BT ..  Diagonal blocks: thread (b = t / 16, column c = t % 16), forward
  // substitution
  if t < 64 {
    let b = t / 16;
    let c = t % 16;
    var x: f32[16];
    for r in 0..16 unroll {                         // row r: 16-byte loads of L, two partial sums (half the chain)
      var a0: f32 = select(r == c, 1.0, 0.0);
      var a1: f32 = 0.0;
      for s4 in 0..r / 4 unroll {
        let l4 = fbuf[16 * b + r, 16 * b + 4 * s4 +: 4];
        a0 = fma(-l4[0], x[4 * s4], a0);
        a1 = fma(-l4[1], x[4 * s4 + 1], a1);
        a0 = fma(-l4[2], x[4 * s4 + 2], a0);
        a1 = fma(-l4[3], x[4 * s4 + 3], a1);
      }
      for s in 4 * (r / 4)..r unroll {
        a0 = fma(-fbuf[16 * b + r, 16 * b + s], x[s], a0);
      }
      x[r] = a0 + a1;
      fbuf[16 * b + r, BT + 16 * b + c] = x[r];
    }
  }
  syncthreads;
  // off-diagonal blocks, level d = i - j: M = sum_{sigma in 16 j .. 16 i} L[16 i + r, sigma] T[sigma, 16 j + c], then
  // T_ij = -A_i M.  Thread (block j = t / 64 of the level's 4 - d, row r = (t % 64) / 4, columns 4 (t % 4) +: 4):
  // 16-byte loads of L / A_i rows (4 sigma) and of T / M rows (the 4 columns), 16 FMAs per 5 loads
  for d in 1..4 unroll {
    let jb = t / 64;
    let rr = (t % 64) / 4;
    let cq = 4 * (t % 4);
    if jb < 4 - d {
      let i = jb + d;
      var a4: f32x4 = f32x4(0.0, 0.0, 0.0, 0.0);
      for s4 in 0..4 * d unroll {
        let sg = 16 * jb + 4 * s4;
        let l4 = fbuf[16 * i + rr, sg +: 4];
        for e in 0..4 unroll {
          let t4 = fbuf[sg + e, BT + 16 * jb + cq +: 4];
          for c in 0..4 unroll {
            a4[c] = fma(l4[e], t4[c], a4[c]);
          }
        }
      }
      ms[jb][rr, cq +: 4] = a4;
    }
    syncthreads;
    if jb < 4 - d {
      let i = jb + d;
      var a4: f32x4 = f32x4(0.0, 0.0, 0.0, 0.0);
      for s4 in 0..4 unroll {
        let l4 = fbuf[16 * i + rr, BT + 16 * i + 4 * s4 +: 4];
        for e in 0..4 unroll {
          let m4 = ms[jb][4 * s4 + e, cq +: 4];
          for c in 0..4 unroll {
            a4[c] = fma(l4[e], m4[c], a4[c]);
          }
        }
      }
      var o4: f32x4;
      for c in 0..4 unroll {
        o4[c] = -a4[c];
      }
      fbuf[16 * i + rr, BT + 16 * jb + cq +: 4] = o4;
    }
    syncthreads;
  }
  for m in 0..16 unroll {                           // T -> bf16, upper blocks 0
    let e = t + 256 * m;
    let r = e / BT;
    let s = e % BT;
    var x: f32 = 0.0;
    if s / 16 <= r / 16 {
      x = fbuf[r, BT + s];
    }
    tb[r, s] = bf16(x);
  }
  syncthreads;

  // ---- 7. [w | u] = T [beta e^G k | beta v]: warp: rows 16 mi .. +16, columns 128 half .. +128
  {
    let mi = warp % 4;
    let half = warp / 4;
    var wu: frag<mma_c, f32, 16, 8, 16>[16] = 0.0;
    for kk in 0..BT / 16 unroll {
      var af: frag<mma_a, bf16, 16, 8, 16>;
      var bfr: frag<mma_b, bf16, 16, 8, 16>[16];
      ldmatrix af <- tb[16 * mi + lane % 16, 16 * kk + (lane / 16) * 8 +: 8];
      for j in 0..16 step 2 unroll {
        ldmatrix.trans bfr[j], bfr[j + 1] <- xb[16 * kk + lane % 16, KD * half + 8 * j + (lane / 16) * 8 +: 8];
      }
      for j in 0..16 unroll {
        mma.sync wu[j] += af * bfr[j];
      }
    }
    syncthreads;                                    // every warp has read xb: it becomes the [w | u] stage
    for j in 0..16 unroll {
      store xb[16 * mi, KD * half + 8 * j] <- bf16(wu[j]);
    }
  }
  syncthreads;
  // ---- 8. w, u -> global in 16-byte row segments (row e / 32, columns 8 (e % 32) +: 8 of [w | u])
  for m in 0..8 unroll {
    let e = t + 256 * m;
    let r = e / 32;
    let c = (e % 32) * 8;
    let x = xb[r, c +: 8];
    if c < KD {
      W[p0 + r, h * KD + c +: 8] = x;
    } else {
      U[p0 + r, h * VD + c - KD +: 8] = x;
    }
  }
}
