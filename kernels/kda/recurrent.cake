// kda_recurrent: the Kimi Delta Attention forward as its token recurrence (fla's chunk_kda contract, K = V = KD),
// with the input activations fused: the correctness baseline of kernels/kda/ (one thread group per state column;
// the chunked tensor-core kernels are to replace it for speed).  Per sequence n, head h, token t (S is KD x VD, f32):
//   q_t <- q_t / sqrt(|q_t|^2 + 1e-6),  k_t likewise                         (SAFE and the unbounded gate alike)
//   g_t = lower_bound * sigmoid(exp(A_log[h]) * (g_raw_t + dt_bias[h]))      (SAFE = 1: Kimi-K3 / FlashKDA)
//   g_t = -exp(A_log[h]) * softplus(g_raw_t + dt_bias[h])                    (SAFE = 0: Kimi-Linear)
//   beta_t = sigmoid(beta_raw_t)
//   S <- Diag(exp(g_t)) S;   S <- S + beta_t k_t (v_t - S^T k_t)^T;   o_t = scale S^T q_t
// Tensors, token-major as chunk_kda takes them with B * T flattened into TT rows: q, k, g [TT, H, KD] bf16,
// v [TT, H, VD] bf16, beta [TT, H] bf16, A_log [H] f32, dt_bias [H, KD] f32, o [TT, H, VD] bf16.  Sequences:
// cu [N + 1] i64 (fixed-length batches pass 0, T, 2T, ...; a sequence may be empty).  States f32: h0 (read when
// USE_H0 = 1) and ht (written when STORE_HT = 1), [N, H, VD, KD] when VFIRST = 1 (FlashKDA's layout, fla's
// state_v_first) else [N, H, KD, VD]; with USE_H0 = 0 / STORE_HT = 0 any one-sequence tensor may be passed.
// cu is read modulo TT + 1 (a sequence whose end lies before its start is empty), so bad offsets cannot
// address out of bounds; the Python op checks them.
//
// Schedule: grid N * H * (VD / COLS) blocks of COLS * TPC threads; block (n, h, slice) owns the state columns
// v = slice * COLS + c, c < COLS.  The TPC = KD / 8 consecutive lanes of column v (16 for K = V = 128, the
// default; -D KD=64 -D VD=64 -D TPC=8 for K = V = 64) hold its rows j * 8 +: 8 in registers (f32x8), so S^T k
// and S^T q are an 8-element dot product and a 4- (3-) step butterfly over the TPC lanes; the two norms reduce in
// the same butterfly as S^T k.  The next token's q / k / g / beta / v are
// loaded while the current one is computed (16-byte loads; the COLS columns of a block read the same rows).
target sm_90a;

fn sigmoid(x: f32) -> f32 {
  return rcp.ftz(1.0 + ex2.ftz(-1.4426950408889634 * x));
}

// the sum over the TPC (16 or 8) lanes of a column group: lanes j ^ 8 (TPC = 16), 4, 2, 1 stay inside the group
fn group_sum(x: f32) -> f32 {
  var s: f32 = x;
  if TPC == 16 {
    s += shfl.xor(s, 8);
  }
  s += shfl.xor(s, 4);
  s += shfl.xor(s, 2);
  s += shfl.xor(s, 1);
  return s;
}

kernel kda_recurrent<KD = 128, VD = 128, TPC = 16, COLS = 8, SAFE = 1, VFIRST = 1, USE_H0 = 1, STORE_HT = 1>(
    q: bf16[TT, H, KD] align(16),
    k: bf16[TT, H, KD] align(16),
    v: bf16[TT, H, VD],
    g: bf16[TT, H, KD] align(16),
    beta: bf16[TT, H],
    A_log: f32[H],
    dt_bias: f32[H, KD] align(16),
    h0: f32[NS, H, VD, KD] align(16),
    ht: f32[NT, H, VD, KD] align(16),
    o: bf16[TT, H, VD],
    cu: i64[NP1],
    scale: f32,
    lower_bound: f32)
  requires(KD == VD, KD == TPC * 8, TPC == 8 || TPC == 16, VD % COLS == 0, COLS * TPC <= 1024, TT >= 1, NP1 >= 2,
           TT < 1073741824, H <= 65536, NP1 <= 16777216, (NP1 - 1) * H <= 16777216,
           USE_H0 == 0 || NS == NP1 - 1, STORE_HT == 0 || NT == NP1 - 1,
           SAFE >= 0, SAFE <= 1, VFIRST >= 0, VFIRST <= 1)
  grid((NP1 - 1) * H * (VD / COLS)) threads(COLS * TPC)
{
  let t_id = i32(tid.x);
  let c = t_id / TPC;
  let j = t_id % TPC;
  let d0 = j * 8;                                   // this thread's state rows d0 .. d0 + 7
  let bx = i32(block.x);
  let slice = bx % (VD / COLS);
  let hh = (bx / (VD / COLS)) % H;
  let n = bx / ((VD / COLS) * H);
  let col = slice * COLS + c;                       // this thread's state column

  // offsets taken modulo TT + 1: bad values cannot address out of bounds (the verifier follows x % C of a
  // loaded x, not a min / max clamp); an end before its start is an empty sequence
  let bos = i32(u32(cu[n]) % u32(TT + 1));
  let eos = i32(u32(cu[n + 1]) % u32(TT + 1));

  let log2e: f32 = 1.4426950408889634;
  let a = ex2.ftz(A_log[hh] * log2e);                   // exp(A_log[h])
  let dtb = dt_bias[hh, d0 +: 8];

  var s: f32x8 = 0.0;
  if USE_H0 == 1 {
    if VFIRST == 1 {
      s = h0[n, hh, col, d0 +: 8];
    } else {
      for i in 0..8 unroll {
        s[i] = h0[n, hh, d0 + i, col];
      }
    }
  }

  // token bos (clamped: an empty sequence loads a valid row and never uses it)
  let t0 = min(bos, TT - 1);
  var qn: bf16x8 = q[t0, hh, d0 +: 8];
  var kn: bf16x8 = k[t0, hh, d0 +: 8];
  var gn: bf16x8 = g[t0, hh, d0 +: 8];
  var bn: bf16 = beta[t0, hh];
  var vn: bf16 = v[t0, hh, col];

  for t in bos..eos {
    let qv = f32x8(qn);
    let kv = f32x8(kn);
    let gv = f32x8(gn);
    let b = sigmoid(f32(bn));
    let vt = f32(vn);
    let tn = min(t + 1, TT - 1);                    // prefetch the next token (a valid row at the end)
    qn = q[tn, hh, d0 +: 8];
    kn = k[tn, hh, d0 +: 8];
    gn = g[tn, hh, d0 +: 8];
    bn = beta[tn, hh];
    vn = v[tn, hh, col];

    // decay: S[d, col] *= exp(g_d)
    for i in 0..8 unroll {
      let x = gv[i] + dtb[i];
      var gate: f32 = 0.0;
      if SAFE == 1 {
        gate = lower_bound * sigmoid(a * x);
      } else {
        let sp = select(x > 20.0, x, 0.6931471805599453 * lg2.ftz(1.0 + ex2.ftz(x * log2e)));   // softplus
        gate = -a * sp;
      }
      s[i] = s[i] * ex2.ftz(gate * log2e);
    }
    var pq: f32 = 0.0;
    var pk: f32 = 0.0;
    var pks: f32 = 0.0;
    for i in 0..8 unroll {
      pq = fma(qv[i], qv[i], pq);
      pk = fma(kv[i], kv[i], pk);
      pks = fma(kv[i], s[i], pks);
    }
    let rq = rsqrt.ftz(group_sum(pq) + 1.0e-6);
    let rk = rsqrt.ftz(group_sum(pk) + 1.0e-6);
    let ks = group_sum(pks) * rk;                   // (S^T k_t)[col] with k_t normalised
    let coef = b * (vt - ks) * rk;                  // beta (v - S^T k), times the norm of k
    var po: f32 = 0.0;
    for i in 0..8 unroll {
      s[i] = fma(coef, kv[i], s[i]);
      po = fma(qv[i], s[i], po);
    }
    let ot = group_sum(po) * rq * scale;
    if j == 0 {
      o[t, hh, col] = bf16(ot);
    }
  }

  if STORE_HT == 1 {
    if VFIRST == 1 {
      ht[n, hh, col, d0 +: 8] = s;
    } else {
      for i in 0..8 unroll {
        ht[n, hh, d0 + i, col] = s[i];
      }
    }
  }
}
