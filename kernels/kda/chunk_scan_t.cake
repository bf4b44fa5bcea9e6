// kda_chunk_scan_t: the sequential half of the chunked KDA forward (fla's chunk_gated_delta_rule_fwd_h + chunk_gla_fwd_o
// fused): for every sequence n and head h, over its chunks of BT = 64 tokens in order, with the state S (KD x VD,
// f32) in wgmma accumulators:
//   v_new = u - w S                          (the delta-rule residual of the chunk's tokens)
//   o     = qg S + P v_new                   (inter-chunk part from the entering state + intra-chunk part)
//   S    <- Diag(e^(G_last)) S + kg^T v_new
// The chunk-local inputs come from the prepare step (kernel 1; for now cakeir.kda.kernels computes them with
// torch on the GPU, see there), in a chunk-padded layout: sequence n's chunk c is rows (CO[n] + c) * BT +: BT of
// every workspace, rows past the sequence's end are zero in w, u, qg, kg, P (so they add nothing to S or o):
//   W  bf16 [TP, H * KD]   w  = (I + L)^-1 (beta e^G k)           (G: the gate's inclusive cumsum in the chunk)
//   QG bf16 [TP, H * KD]   qg = scale q e^G
//   KG bf16 [TP, H * KD]   kg = k e^(G_last - G)
//   P  bf16 [TP, H * BT]   P[r, s] = scale sum_d q_rd k_sd e^(G_rd - G_sd) for s <= r, else 0
//   U  bf16 [TP, H * VD]   u  = (I + L)^-1 (beta v)
//   GL f32  [NCT, H * KD]  e^(G_last) of chunk row CO[n] + c
// o is written to O bf16 [TT, H * VD] (token-major, rows cu[n] .. cu[n + 1]); the state is read from h0 and written
// to ht (f32, [N, H, VD, KD] when VFIRST = 1 else [N, H, KD, VD]; USE_H0 / STORE_HT as in recurrent.cake).
//
// Schedule: grid (N * H, VD / (BV * WG)) blocks of WG warpgroups (role math[WG]); instance i of block
// (n * H + h, j) owns the state columns v0 = (j * WG + i) * BV +: BV (BV = 64), held transposed, S^T [BV, KD]
// (rows v, columns d), in one 64 x 128 wgmma accumulator sT, so that every product on the chain from one chunk's
// state to the next takes the state or v_new from registers (the register A operand) and nothing goes through
// shared memory:
//   v_new^T = u^T - S^T w^T                 (A = bf16(sT), B = w [BT, KD] read K-major: ws.T)
//   o^T     = S^T qg^T + v_new^T P^T        (A = bf16(sT), then bf16(v_new^T); B = qs.T, ps.T)
//   S^T    <- S^T Diag(e^(G_last)) + v_new^T kg   (A = bf16(v_new^T), B = kg [BT, KD] read MN-major)
// The warpgroups of a block share the chunk's ring tiles (w, qg, kg, P are loaded once for WG column blocks).
// Per chunk c (stage c % 2 of a two-stage ring, filled by TMA one chunk ahead: the shared tiles by an elected
// thread of warpgroup 0 once every warpgroup has released them (mbarrier empty, one arrival per warpgroup after
// its wgmmas on the stage), each warpgroup's u columns and e^G_last by its own elected thread):
//   1. u^T gathered from the ring at v_new^T's layout (it does not depend on the state)
//   2. v_new^T = S^T w^T, o^T = S^T qg^T (two groups); once v_new^T is ready, v_new^T = u^T - v_new^T and
//      S^T *= e^(G_last) per column while o^T's group runs
//   3. S^T += v_new^T kg, o^T += v_new^T P^T; wait
//   4. o^T -> shared (so [BV, BT + 8]) -> the rows of the sequence, read down so's columns, masked by its end.
// The last chunk of a sequence is peeled off the loop (no prefetch; its o rows are masked by the sequence's end),
// so the loop body's control flow repeats with period 2 as the verifier requires.
//
// VARLEN = 0: N sequences of equal length TT / N (cu and CO are not read).  VARLEN = 1: sequence bounds from
// cu, chunk offsets from CO, both read modulo TT + 1 and NCT + 1 (bad offsets cannot address out of bounds; the
// op checks them); the verifier takes these reads as inputs of the launch (the kernel never writes cu or CO).
target sm_90a;

// stage st's ring tiles <- the chunk at padded row r, chunk row cr (one elected thread of each warpgroup):
// warpgroup 0 loads the tiles all warpgroups share (w, qg, kg, P), and every warpgroup its own column block of
// u and its copy of e^G_last (the tiles it reads with generic loads: their refill is then ordered after those
// reads by the warpgroup's own barrier, where the shared tiles are released through mbarrier empty)
fn load_chunk(st: i32, r: i32, cr: i32, h: i32) {
  let wi = math.index;
  let vb = (i32(block.y) * WG + wi) * BV;
  if wi == 0 {
    arrive full[st] expect_tx((3 * BT * KD + BT * BT + BT * BV) * 2 + KD * 4);
    for cb in 0..KD / 64 unroll {
      tma.load ws[st][:, 64 * cb +: 64] <- W[r, h * KD + 64 * cb] signal(full[st]);
      tma.load qs[st][:, 64 * cb +: 64] <- QG[r, h * KD + 64 * cb] signal(full[st]);
      tma.load ks[st][:, 64 * cb +: 64] <- KG[r, h * KD + 64 * cb] signal(full[st]);
    }
    tma.load ps[st] <- P[r, h * BT] signal(full[st]);
  } else {
    arrive full[st] expect_tx(BT * BV * 2 + KD * 4);
  }
  tma.load us[WG * st + wi] <- U[r, h * VD + vb] signal(full[st]);
  tma.load gs[WG * st + wi] <- GL[cr, h * KD] signal(full[st]);
}

// one chunk: c its index in the sequence, row0 its first padded row, t0 its first token row; PREF: load chunk
// c + 1 (at padded row row0 + BT) into the other stage; rows: how many of its rows belong to the sequence
fn chunk_step(var sT: frag<wgmma_acc, f32, 64, KD, 16>, var vT: frag<wgmma_acc, f32, 64, BT, 16>,
              var oT: frag<wgmma_acc, f32, 64, BT, 16>,
              c: i32, row0: i32, crow: i32, t0: i32, h: i32, v0: i32, pref: i32, rows: i32) {
  let st = c % 2;
  let wi = math.index;
  if pref == 1 {
    if math.warp == 0 {
      elect {
        // stage (c + 1) % 2 held chunk c - 1: every warpgroup has released its shared tiles (the first use
        // passes at once)
        if math.index == 0 {
          wait empty[(c + 1) % 2] parity(((c + 1) / 2 + 1) & 1);
        }
        load_chunk((c + 1) % 2, row0 + BT, crow + 1, h);
      }
    }
  }
  wait full[st] parity((c / 2) & 1);
  // 1. u^T at v_new^T's layout: element (v, t) is u[t, v]
  var ut: frag<wgmma_acc, f32, 64, BT, 16> = f32(us[WG * st + wi][vT.col, vT.row]);
  // 2. v_new^T = u^T - S^T w^T; o^T = S^T qg^T runs behind it, and the decay of S^T beside both
  vT = 0.0;
  oT = 0.0;
  wgmma.fence;
  wgmma vT += bf16(sT) * ws[st].T;
  wgmma.commit;
  wgmma oT += bf16(sT) * qs[st].T;
  wgmma.commit;
  wgmma.wait 1;                                     // v_new^T is ready; o^T's group may still run
  vT = ut - vT;
  sT = sT * gs[WG * st + wi][0, sT.col];                      // not between the commits and the wait: ptxas then serializes
                                                    // every wgmma of the kernel (C7518)
  // 3. S^T += v_new^T kg;  o^T += v_new^T P^T
  wgmma.fence;
  wgmma sT += bf16(vT) * ks[st];
  wgmma oT += bf16(vT) * ps[st].T;
  wgmma.commit;
  wgmma.wait 0;
  if math.warp == 0 {
    elect {
      arrive empty[st];                             // this warpgroup's reads of stage st are done
    }
  }
  // 4. o^T -> so -> the chunk's o rows that belong to the sequence: thread (token row r, 32 columns from cv)
  store so[wi][0, 0] <- bf16(oT);
  sync wg[wi];
  let r = math.thread % 64;
  let cv = (math.thread / 64) * 32;
  for e in 0..4 unroll {
    var x: f32x8;
    for j in 0..8 unroll {
      x[j] = f32(so[wi][cv + 8 * e + j, r]);
    }
    if r < rows {
      if t0 + r < TT {                              // follows from r < rows; stated for the solver
        O[t0 + r, h * VD + v0 + cv + 8 * e +: 8] = bf16x8(x);
      }
    }
  }
  sync wg[wi];                                      // so is read: the next chunk may store into it
}

// the whole scan of one (sequence, head, column block): bos / len the sequence's first token row and length,
// co its first chunk row in the padded workspaces
fn scan(n: i32, h: i32, v0: i32, bos: i32, len: i32, co: i32) {
  let nch = cdiv(len, BT);
  var sT: frag<wgmma_acc, f32, 64, KD, 16> = 0.0;
  if USE_H0 == 1 {
    if VFIRST == 1 {
      sT = h0[n, h, v0 + sT.row, sT.col];
    } else {
      sT = h0[n, h, sT.col, v0 + sT.row];
    }
  }
  var vT: frag<wgmma_acc, f32, 64, BT, 16>;
  var oT: frag<wgmma_acc, f32, 64, BT, 16>;

  if nch > 0 {
    if math.warp == 0 {
      elect {
        load_chunk(0, co * BT, co, h);
      }
    }
    for c in 0..nch - 1 {
      chunk_step(sT, vT, oT, c, (co + c) * BT, co + c, bos + c * BT, h, v0, 1, BT);
    }
    let cl = nch - 1;
    chunk_step(sT, vT, oT, cl, (co + cl) * BT, co + cl, bos + cl * BT, h, v0, 0, len - cl * BT);
  }

  if STORE_HT == 1 {
    if VFIRST == 1 {
      store ht[n, h, v0, 0] <- sT;
    } else {
      let ra = sT.row;
      let ca = sT.col;
      for e in 0..64 unroll {
        // element coordinates of a fragment lose their range when taken out of it: % keeps them provably
        // in the tile (a no-op: .row < 64, .col < KD)
        let v = i32(u32(ra[e]) % 64);
        let d = i32(u32(ca[e]) % KD);
        ht[n, h, d, v0 + v] = sT[e];
      }
    }
  }
}

kernel kda_chunk_scan_t<BT = 64, KD = 128, VD = 128, BV = 64, VARLEN = 0, VFIRST = 1, USE_H0 = 1, STORE_HT = 1,
                     WG = 1>(
    W: bf16[TP, HK] tma(box=[BT, 64], swizzle=128B) align(16),
    QG: bf16[TP, HK] tma(box=[BT, 64], swizzle=128B) align(16),
    KG: bf16[TP, HK] tma(box=[BT, 64], swizzle=128B) align(16),
    P: bf16[TP, HB] tma(box=[BT, BT], swizzle=128B) align(16),
    U: bf16[TP, HV] tma(box=[BT, 64], swizzle=128B) align(16),
    GL: f32[NCT, HK] tma(box=[1, KD]) align(16),
    h0: f32[NS, H, VD, KD] align(16),
    ht: f32[NT, H, VD, KD] align(16),
    O: bf16[TT, HV] align(16),
    cu: i64[NP1],
    CO: i32[NP1])
  requires(BT == 64, KD == 128, VD == KD, BV == 64, WG >= 1, WG <= 2, VD % (BV * WG) == 0, HK == H * KD, HV == H * VD, HB == H * BT,
           TP == NCT * BT, TT >= 1, NP1 >= 2, TT < 268435456, TP < 268435456, H <= 4096,
           (NP1 - 1) * H <= 16777216, USE_H0 == 0 || NS == NP1 - 1, STORE_HT == 0 || NT == NP1 - 1,
           VARLEN == 1 || TT % (NP1 - 1) == 0, VARLEN == 1 || TP == (NP1 - 1) * cdiv(TT / (NP1 - 1), BT) * BT,
           VARLEN >= 0, VARLEN <= 1, VFIRST >= 0, VFIRST <= 1)
  grid((NP1 - 1) * H, VD / (BV * WG)) threads(128 * WG)
{
  shared ws: bf16[2][BT, KD] swizzle(128B) align(1024);
  shared qs: bf16[2][BT, KD] swizzle(128B) align(1024);
  shared ks: bf16[2][BT, KD] swizzle(128B) align(1024);
  shared ps: bf16[2][BT, BT] swizzle(128B) align(1024);
  shared us: bf16[2 * WG][BT, BV] swizzle(128B) align(1024);   // stage st, warpgroup wi: WG st + wi
  shared gs: f32[2 * WG][1, KD] align(128);
  shared so: bf16[WG][BV, BT + 8] align(16);        // o^T, staged for the row stores
  mbarrier full[2] arrivals(WG);                    // one arrival (with its bytes) per warpgroup
  mbarrier empty[2] arrivals(WG);                   // each warpgroup releases a stage once its wgmmas read it
  barrier wg[WG] id(1) threads(128);                // one warpgroup's own steps

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let n = i32(block.x) / H;
  role math[WG] = warpgroups(0..WG) {
    let v0 = (i32(block.y) * WG + math.index) * BV;
    if VARLEN == 0 {
      let len = TT / (NP1 - 1);
      scan(n, i32(block.x) % H, v0, n * len, len, n * cdiv(len, BT));
    } else {
      let bos = i32(u32(cu[n]) % u32(TT + 1));
      let eos = i32(u32(cu[n + 1]) % u32(TT + 1));
      scan(n, i32(block.x) % H, v0, bos, max(eos - bos, 0), i32(u32(CO[n]) % u32(NCT + 1)));
    }
  }
}
