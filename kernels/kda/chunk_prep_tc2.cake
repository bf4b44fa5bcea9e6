// kda_chunk_prep_tc2: kernels/kda/chunk_prep_tc.cake (same interface, workspaces and math, the same roundings but in
// the safe gate's diagonal blocks; read its header) with its shared memory cut from 202,688 B to about 109 KB, so that two blocks fit on an SM (one block's
// global loads, syncthreads and SIMT phases overlap the other's), and with 16-byte zero stores for P:
//   - the raw q, k (bf16) and, once nothing reads them any more, [beta e^G k | beta v] share one bf16 buffer xb;
//     the right-hand sides are built in place (each thread reads its own k slice, then writes its two slices);
//   - g, then G (f32), and later L (columns 0 .. 63) and T (columns 64 .. 127) share one f32 buffer fbuf: L is
//     written from registers (the off-diagonal mma accumulators, the diagonal sums) once G is dead;
//   - the factored f16 operands of the off-diagonal L / P tiles are built and consumed in two halves of 64
//     channels (fa, fb half as wide); the mma accumulators stay in registers across the halves.
// With the safe gate (SAFE = 1) the diagonal blocks are factored through each block's middle row in f32
// (e^(G_r - G_s) = e^(G_r - G_m) e^(G_m - G_s), finite because g >= lower_bound >= -5) and summed as 4 x 4
// register micro-tiles: 8 ex2 per channel for 32 products instead of one per product (the exact per-pair form,
// chunk_prep_tc's, stays for SAFE = 0).  Two blocks of 256 threads need at most 128 registers each: SAFE = 1 is
// built with --maxrregcount=128 (bench/kda_build.sh; 128, 24 bytes of spills in straight-line code), SAFE = 0 needs
// 106 without a cap.
// Phases (barriers between them): 1. activations -> xb (raw q | raw k), fbuf (g), norms, beta.  2. G = cumsum.
// 3. f16 operands, channels 0 .. 63; QG, KG -> global.  4. mma k-steps over channels 0 .. 63.  5. f16 operands,
// channels 64 .. 127; the diagonal blocks (f32; P's to global, L's kept in registers); P's upper blocks 0.
// 6. mma k-steps over channels 64 .. 127, P tiles -> global; [beta e^G k | beta v] -> xb in place.  7. L -> fbuf.
// 8. T = (I + L)^-1 by 16 x 16 blocks (fbuf columns 64 ..; the block merges with 16-byte loads, 4 columns a
// thread), T -> bf16.  9. [w | u] = T [beta e^G k | beta v], staged in xb.  10. w, u -> global in 16-byte row
// segments.
// The torch model of its roundings is cakeir.kda.kernels.prepare_chunks_tc_model (factored_diagonal = SAFE).
target sm_90a;

fn sigmoid(x: f32) -> f32 {
  return rcp.ftz(1.0 + ex2.ftz(-1.4426950408889634 * x));
}

// sub-chunk i (1..3) of off-diagonal tile rest (0..11): rest < 2: 1, < 6: 2, else 3
fn tile_i(rest: i32) -> i32 {
  return 1 + select(rest >= 2, 1, 0) + select(rest >= 6, 1, 0);
}

// SAFE = 1 diagonal blocks: thread t < 160 works on lower micro-tile t / 4 (block b = t / 40, id = (t / 4) % 10 ->
// micro-row ti = 0, 1, 1, 2, 2, 2, 3, 3, 3, 3 and micro-column si <= ti); its rows / columns start here
fn diag_row0(t: i32) -> i32 {
  let id = (t / 4) % 10;
  return 16 * (t / 40) + 4 * (select(id >= 1, 1, 0) + select(id >= 3, 1, 0) + select(id >= 6, 1, 0));
}

fn diag_col0(t: i32) -> i32 {
  let id = (t / 4) % 10;
  return 16 * (t / 40) + 4 * (id - select(id >= 6, 6, select(id >= 3, 3, select(id >= 1, 1, 0))));
}

// the factored f16 operands of the off-diagonal blocks over channels 64 hf .. +64 (fbuf holds G, xb raw q | k)
fn build_operands(hf: i32, t: i32) {
  let log2e: f32 = 1.4426950408889634;
  for m in 0..2 unroll {                            // 48 rows x 8 groups of fa
    let e = t + 256 * m;
    if e < 384 {
      let rr = e / 8;
      let dl = (e % 8) * 8;
      let d = 64 * hf + dl;
      let r = 16 + rr;
      let n = 16 * (r / 16);
      let g8 = fbuf[r, d +: 8];
      let n8 = fbuf[n, d +: 8];
      let k8 = f32x8(xb[r, KD + d +: 8]);
      let q8 = f32x8(xb[r, d +: 8]);
      let kr = rk[r];
      let qr = rq[r];
      var a8: f32x8;
      var b8: f32x8;
      for j in 0..8 unroll {
        let f = ex2.ftz((g8[j] - n8[j]) * log2e);
        a8[j] = k8[j] * kr * f;
        b8[j] = q8[j] * qr * f;
      }
      fa[0][rr, dl +: 8] = f16x8(a8);
      fa[1][rr, dl +: 8] = f16x8(b8);
    }
  }
  for m in 0..3 unroll {                            // 96 rows x 8 groups of fb
    let e = t + 256 * m;
    let row = e / 8;
    let dl = (e % 8) * 8;
    let d = 64 * hf + dl;
    let i = 1 + select(row >= 16, 1, 0) + select(row >= 48, 1, 0);
    let sr = row - 8 * (i - 1) * i;
    let n = 16 * i;
    let g8 = fbuf[sr, d +: 8];
    let n8 = fbuf[n, d +: 8];
    let k8 = f32x8(xb[sr, KD + d +: 8]);
    let kr = rk[sr];
    var b8: f32x8;
    for j in 0..8 unroll {
      b8[j] = k8[j] * kr * ex2.ftz((n8[j] - g8[j]) * log2e);
    }
    fb[row, dl +: 8] = f16x8(b8);
  }
}

// the mma k-steps of one half of the channels (fa, fb hold it) for this warp's three tiles (section 4)
fn tiles_half(var acc: frag<mma_c, f32, 16, 8, 16>[3]) {
  for m in 0..3 unroll {
    let tau = 3 * warp + m;
    let typ = tau / 12;
    let rest = tau % 12;
    let i = tile_i(rest);
    let nt = rest - select(i == 1, 0, select(i == 2, 2, 6));
    let base = 8 * (i - 1) * i;
    for kk in 0..KD / 32 unroll {
      var af: frag<mma_a, f16, 16, 8, 16>;
      var bfr: frag<mma_b, f16, 16, 8, 16>;
      ldmatrix af <- fa[typ][16 * (i - 1) + lane % 16, 16 * kk + (lane / 16) * 8 +: 8];
      ldmatrix bfr <- fb[base + 8 * nt + lane % 8, 16 * kk + ((lane / 8) % 2) * 8 +: 8];
      mma.sync acc[m] += af * bfr;
    }
  }
}

kernel kda_chunk_prep_tc2<BT = 64, KD = 128, VD = 128, SAFE = 1>(
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
           TP >= BT, TT < 268435456, TP < 268435456, H <= 4096, SAFE >= 0, SAFE <= 1)
  grid(NCT, H) threads(256)
{
  shared xb: bf16[BT, KD + VD + 8];           // raw q (columns 0 ..), raw k (KD ..); then [beta e^G k | beta v]
  shared rq: f32[BT];                         // 1 / |q_r|, 1 / |k_r| (0 on padded rows)
  shared rk: f32[BT];
  shared bs: f32[BT];
  shared fbuf: f32[BT, KD + 4];               // g, then G; then L (columns 0 .. BT) and T (BT .. 2 BT)
  shared fa: f16[2][48, KD / 2 + 8];          // one half of the channels: [0] k_r e^(G_r - G_n), [1] q_r e^(G_r - G_n)
  shared fb: f16[96, KD / 2 + 8];             // k_s e^(G_n - G_s), n = 16 i: row 8 (i - 1) i + s, s < 16 i
  shared ms: f32[3][16, 20];                  // the block merges' partial products (rows 16-byte aligned)
  shared tb: bf16[BT, BT + 8];                // T, bf16, upper blocks 0

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
    let a = ex2.ftz(A_log[h] * log2e);
    var sqq: f32 = 0.0;
    var skk: f32 = 0.0;
    for j in 0..4 unroll {
      let qraw = q[tok, h, c0 + 8 * j +: 8];
      let kraw = k[tok, h, c0 + 8 * j +: 8];
      xb[r, c0 + 8 * j +: 8] = qraw;
      xb[r, KD + c0 + 8 * j +: 8] = kraw;
      let q8 = f32x8(qraw);
      let k8 = f32x8(kraw);
      let g8 = f32x8(g[tok, h, c0 + 8 * j +: 8]);
      let d8 = dt_bias[h, c0 + 8 * j +: 8];
      var gv: f32x8;
      for e in 0..8 unroll {
        sqq = fma(q8[e], q8[e], sqq);
        skk = fma(k8[e], k8[e], skk);
        let x = g8[e] + d8[e];
        var gate: f32 = 0.0;
        if SAFE == 1 {
          gate = lower_bound * sigmoid(a * x);
        } else {
          gate = -a * select(x > 20.0, x, 0.6931471805599453 * lg2.ftz(1.0 + ex2.ftz(x * log2e)));
        }
        gv[e] = select(ok_row, gate, 0.0);
      }
      fbuf[r, c0 + 8 * j +: 8] = gv;
    }
    sqq += shfl.xor(sqq, 1);
    sqq += shfl.xor(sqq, 2);
    skk += shfl.xor(skk, 1);
    skk += shfl.xor(skk, 2);
    if t % 4 == 0 {
      rq[r] = select(ok_row, rsqrt.ftz(sqq + 1.0e-6), 0.0);
      rk[r] = select(ok_row, rsqrt.ftz(skk + 1.0e-6), 0.0);
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
    GL[ch, h * KD + c] = ex2.ftz(fbuf[BT - 1, c] * log2e);    // this thread wrote it just above
  }
  syncthreads;

  // ---- 3. f16 operands over channels 0 .. 63; QG, KG
  build_operands(0, t);
  for m in 0..4 unroll {                            // row r = e / 16, channels c .. c + 7 (16-byte accesses)
    let e = t + 256 * m;
    let r = e / 16;
    let c = (e % 16) * 8;
    let g8 = fbuf[r, c +: 8];
    let l8 = fbuf[BT - 1, c +: 8];
    let k8 = f32x8(xb[r, KD + c +: 8]);
    let q8 = f32x8(xb[r, c +: 8]);
    let kr = rk[r];
    let qr = rq[r];
    var qg: f32x8;
    var kg: f32x8;
    for j in 0..8 unroll {
      let kn = k8[j] * kr;
      qg[j] = scale * q8[j] * qr * ex2.ftz(g8[j] * log2e);
      kg[j] = kn * ex2.ftz((l8[j] - g8[j]) * log2e);
    }
    QG[p0 + r, h * KD + c +: 8] = bf16x8(qg);
    KG[p0 + r, h * KD + c +: 8] = bf16x8(kg);
  }
  syncthreads;

  // ---- 4. off-diagonal tiles, channels 0 .. 63: tile tau = 3 warp + m of 24: typ = tau / 12 (0: L, 1: P); rest =
  // tau % 12 names sub-chunk i (rest < 2: 1, < 6: 2, else 3) and the 8-column tile nt < 2 i of columns 0 .. 16 i
  var acc: frag<mma_c, f32, 16, 8, 16>[3] = 0.0;
  tiles_half(acc);
  syncthreads;

  // ---- 5. f16 operands over channels 64 .. 127; the four diagonal 16 x 16 blocks (s <= r inside one sub-chunk);
  // P's entries to global (and 0 above the diagonal), L's kept in registers until G is dead.
  //   SAFE = 1 (g >= lower_bound >= -5): factored through the block's middle row m = 16 b + 8 in f32,
  //     e^(G_r - G_s) = e^(G_r - G_m) e^(G_m - G_s), both factors within e^(+-8 * 5): no overflow, and the products
  //     keep f32 accuracy.  Warps 0 .. 4: thread (micro-tile t / 4 of the 40 lower 4 x 4 micro-tiles, channel
  //     quarter kq = t % 4: channels 16 st + 4 kq +: 4) sums 4 x 4 entries of L and P over its channels (8 ex2 per
  //     channel for 32 products), then the 4 lanes add up (butterflies) and lane kq keeps row 4 ti + kq.
  //     Warps 5 .. 7 write P's zeros above the micro-tile diagonal (8-byte stores).
  //   SAFE = 0 (unbounded gate): exact exponents per pair.  Thread (block t / 64, ri = (t % 64) / 8, si = t % 8)
  //     owns the 2 x 2 entries rows r0 = 16 b + ri, r1 = r0 + 8, columns s0 = 16 b + si, s1 = s0 + 8: (r1, s0) is
  //     always below the diagonal, (r0, s0) and (r1, s1) when si <= ri, (r0, s1) never.
  build_operands(1, t);
  var ld: f32x4;                                    // SAFE = 1: L's row of this lane in its micro-tile
  var la: f32 = 0.0;                                // SAFE = 0: L's entries (r0, s0), (r1, s0), (r1, s1)
  var lb: f32 = 0.0;
  var lc: f32 = 0.0;
  if SAFE == 1 {
    if warp < 5 {
      let kq = t % 4;
      let ra = diag_row0(t);
      let sa = diag_col0(t);
      let mr = 16 * (t / 40) + 8;
      var al: f32[4, 4];
      var ap: f32[4, 4];
      for i in 0..4 unroll {
        for j in 0..4 unroll {
          al[i, j] = 0.0;
          ap[i, j] = 0.0;
        }
      }
      for st in 0..KD / 16 {
        let d = 16 * st + 4 * kq;
        let gm = fbuf[mr, d +: 4];
        let g0 = fbuf[ra, d +: 4];
        let g1 = fbuf[ra + 1, d +: 4];
        let g2 = fbuf[ra + 2, d +: 4];
        let g3 = fbuf[ra + 3, d +: 4];
        let h0 = fbuf[sa, d +: 4];
        let h1 = fbuf[sa + 1, d +: 4];
        let h2 = fbuf[sa + 2, d +: 4];
        let h3 = fbuf[sa + 3, d +: 4];
        let k0 = f32x4(xb[ra, KD + d +: 4]);
        let k1 = f32x4(xb[ra + 1, KD + d +: 4]);
        let k2 = f32x4(xb[ra + 2, KD + d +: 4]);
        let k3 = f32x4(xb[ra + 3, KD + d +: 4]);
        let q0 = f32x4(xb[ra, d +: 4]);
        let q1 = f32x4(xb[ra + 1, d +: 4]);
        let q2 = f32x4(xb[ra + 2, d +: 4]);
        let q3 = f32x4(xb[ra + 3, d +: 4]);
        let c0 = f32x4(xb[sa, KD + d +: 4]);
        let c1 = f32x4(xb[sa + 1, KD + d +: 4]);
        let c2 = f32x4(xb[sa + 2, KD + d +: 4]);
        let c3 = f32x4(xb[sa + 3, KD + d +: 4]);
        for e in 0..4 unroll {
          var xk: f32[4];
          var xq: f32[4];
          var y: f32[4];
          let x0 = ex2.ftz((g0[e] - gm[e]) * log2e);
          let x1 = ex2.ftz((g1[e] - gm[e]) * log2e);
          let x2 = ex2.ftz((g2[e] - gm[e]) * log2e);
          let x3 = ex2.ftz((g3[e] - gm[e]) * log2e);
          xk[0] = k0[e] * x0;
          xk[1] = k1[e] * x1;
          xk[2] = k2[e] * x2;
          xk[3] = k3[e] * x3;
          xq[0] = q0[e] * x0;
          xq[1] = q1[e] * x1;
          xq[2] = q2[e] * x2;
          xq[3] = q3[e] * x3;
          y[0] = c0[e] * ex2.ftz((gm[e] - h0[e]) * log2e);
          y[1] = c1[e] * ex2.ftz((gm[e] - h1[e]) * log2e);
          y[2] = c2[e] * ex2.ftz((gm[e] - h2[e]) * log2e);
          y[3] = c3[e] * ex2.ftz((gm[e] - h3[e]) * log2e);
          for i in 0..4 unroll {
            for j in 0..4 unroll {
              al[i, j] = fma(xk[i], y[j], al[i, j]);
              ap[i, j] = fma(xq[i], y[j], ap[i, j]);
            }
          }
        }
      }
      for i in 0..4 unroll {
        for j in 0..4 unroll {
          al[i, j] += shfl.xor(al[i, j], 1);
          al[i, j] += shfl.xor(al[i, j], 2);
          ap[i, j] += shfl.xor(ap[i, j], 1);
          ap[i, j] += shfl.xor(ap[i, j], 2);
        }
      }
      let r = ra + kq;
      var pv: f32x4;
      for j in 0..4 unroll {
        let s = sa + j;
        let lv = select(kq == 0, al[0, j], select(kq == 1, al[1, j], select(kq == 2, al[2, j], al[3, j])));
        let pw = select(kq == 0, ap[0, j], select(kq == 1, ap[1, j], select(kq == 2, ap[2, j], ap[3, j])));
        ld[j] = select(s < r, bs[r] * rk[r] * rk[s] * lv, 0.0);
        pv[j] = select(s <= r, scale * rq[r] * rk[s] * pw, 0.0);
      }
      P[p0 + r, h * BT + sa +: 4] = bf16x4(pv);
    } else {
      let z = f32x4(0.0, 0.0, 0.0, 0.0);
      for m in 0..11 unroll {                       // (row e / 16, columns 4 (e % 16) +: 4) above the micro-diagonal
        let e = t - 160 + 96 * m;
        if e < 1024 {
          let r = e / 16;
          let cq = e % 16;
          if cq > r / 4 {
            P[p0 + r, h * BT + 4 * cq +: 4] = bf16x4(z);
          }
        }
      }
    }
  } else {
    let blk = t / 64;
    let ri = (t % 64) / 8;
    let si = t % 8;
    let r0 = 16 * blk + ri;
    let r1 = r0 + 8;
    let s0 = 16 * blk + si;
    let s1 = s0 + 8;
    var pa: f32 = 0.0;
    var pb: f32 = 0.0;
    var pc: f32 = 0.0;
    for dq in 0..KD / 4 unroll(2) {
      let d = 4 * dq;
      let gr0 = fbuf[r0, d +: 4];
      let gr1 = fbuf[r1, d +: 4];
      let gs0 = fbuf[s0, d +: 4];
      let gs1 = fbuf[s1, d +: 4];
      let kr0 = f32x4(xb[r0, KD + d +: 4]);
      let kr1 = f32x4(xb[r1, KD + d +: 4]);
      let ks0 = f32x4(xb[s0, KD + d +: 4]);
      let ks1 = f32x4(xb[s1, KD + d +: 4]);
      let qr0 = f32x4(xb[r0, d +: 4]);
      let qr1 = f32x4(xb[r1, d +: 4]);
      for e in 0..4 unroll {
        let xa = ex2.ftz(min(gr0[e] - gs0[e], 0.0) * log2e) * ks0[e];   // min: the masked pairs never overflow
        let xbb = ex2.ftz((gr1[e] - gs0[e]) * log2e) * ks0[e];
        let xc = ex2.ftz(min(gr1[e] - gs1[e], 0.0) * log2e) * ks1[e];
        la = fma(kr0[e], xa, la);
        pa = fma(qr0[e], xa, pa);
        lb = fma(kr1[e], xbb, lb);
        pb = fma(qr1[e], xbb, pb);
        lc = fma(kr1[e], xc, lc);
        pc = fma(qr1[e], xc, pc);
      }
    }
    let below = si <= ri;
    P[p0 + r0, h * BT + s0] = bf16(select(below, scale * rq[r0] * rk[s0] * pa, 0.0));
    P[p0 + r0, h * BT + s1] = bf16(0.0);
    P[p0 + r1, h * BT + s0] = bf16(scale * rq[r1] * rk[s0] * pb);
    P[p0 + r1, h * BT + s1] = bf16(select(below, scale * rq[r1] * rk[s1] * pc, 0.0));
    let pr = t / 4;                                 // row pr, column block t % 4: zero when above the diagonal
    let cb = t % 4;
    if cb > pr / 16 {
      let z = f32x8(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
      P[p0 + pr, h * BT + 16 * cb +: 8] = bf16x8(z);
      P[p0 + pr, h * BT + 16 * cb + 8 +: 8] = bf16x8(z);
    }
  }
  syncthreads;

  // ---- 6. off-diagonal tiles, channels 64 .. 127 (P's to global); then [beta e^G k | beta v] into xb in place: each
  // thread reads its k slice (nobody else reads raw q, k any more) and writes its two slices
  tiles_half(acc);
  for m in 0..3 unroll {
    let tau = 3 * warp + m;
    let i = tile_i(tau % 12);
    let nt = tau % 12 - select(i == 1, 0, select(i == 2, 2, 6));
    if tau >= 12 {
      store P[p0 + 16 * i, h * BT + 8 * nt] <- bf16(acc[m] * scale);
    }
  }
  for m in 0..4 unroll {
    let e = t + 256 * m;
    let r = e / 16;
    let c = (e % 16) * 8;
    let row = ROWS[p0 + r];
    let tok = i32(u32(row) % u32(TT));
    let g8 = fbuf[r, c +: 8];
    let k8 = f32x8(xb[r, KD + c +: 8]);
    let v8 = f32x8(v[tok, h, c +: 8]);
    let kr = rk[r];
    let br = bs[r];                                 // 0 on padded rows
    var wk: f32x8;
    var wv: f32x8;
    for j in 0..8 unroll {
      wk[j] = br * ex2.ftz(g8[j] * log2e) * (k8[j] * kr);
      wv[j] = br * v8[j];
    }
    xb[r, c +: 8] = bf16x8(wk);
    xb[r, KD + c +: 8] = bf16x8(wv);
  }
  syncthreads;

  // ---- 7. L -> fbuf columns 0 .. BT (strictly lower; G is dead)
  for m in 0..3 unroll {
    let tau = 3 * warp + m;
    let i = tile_i(tau % 12);
    let nt = tau % 12 - select(i == 1, 0, select(i == 2, 2, 6));
    if tau < 12 {
      store fbuf[16 * i, 8 * nt] <- acc[m] * bs[16 * i + acc[m].row];
    }
  }
  if SAFE == 1 {
    if warp < 5 {
      fbuf[diag_row0(t) + t % 4, diag_col0(t) +: 4] = ld;   // 0 on and above the diagonal
    }
  } else {
    let ri = (t % 64) / 8;
    let si = t % 8;
    let r0 = 16 * (t / 64) + ri;
    let r1 = r0 + 8;
    let s0 = 16 * (t / 64) + si;
    let s1 = s0 + 8;
    if si < ri {
      fbuf[r0, s0] = bs[r0] * rk[r0] * rk[s0] * la;
      fbuf[r1, s1] = bs[r1] * rk[r1] * rk[s1] * lc;
    }
    fbuf[r1, s0] = bs[r1] * rk[r1] * rk[s0] * lb;
  }
  syncthreads;

  // ---- 8. T = (I + L)^-1 in fbuf columns BT ..  Diagonal blocks: thread (b = t / 16, column c = t % 16), forward
  // substitution
  if t < 64 {
    let b = t / 16;
    let c = t % 16;
    var x: f32[16];
    for r in 0..16 unroll {
      var a: f32 = select(r == c, 1.0, 0.0);
      for s in 0..r unroll {
        a = fma(-fbuf[16 * b + r, 16 * b + s], x[s], a);
      }
      x[r] = a;
      fbuf[16 * b + r, BT + 16 * b + c] = a;
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

  // ---- 9. [w | u] = T [beta e^G k | beta v]: warp: rows 16 mi .. +16, columns 128 half .. +128
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
  // ---- 10. w, u -> global in 16-byte row segments (row e / 32, columns 8 (e % 32) +: 8 of [w | u])
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
