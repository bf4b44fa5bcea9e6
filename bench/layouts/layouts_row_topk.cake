// layouts_row_topk: device check of per-row register state across loop iterations (bench/layouts_check.py):
// for each row of S = A[64, 64] * B[NB, 64]^T (NB columns in tiles of 128), the KK smallest scores and their
// columns, ascending (ties: the smaller column), kept in registers as arrays of row vectors.
//   TV[r, t], TI[r, t] = the t-th smallest S[r, :] and its column
target sm_90a;

// (v, j) enters the sorted per-row lists (dv, di) of the KK smallest (score, column) pairs; the last drops out.
fn topk_insert(var dv: frag<wgmma_row, f32, 64>[KK], var di: frag<wgmma_row, i32, 64>[KK],
               v: frag<wgmma_row, f32, 64>, j: frag<wgmma_row, i32, 64>) {
  var sv: frag<wgmma_row, f32, 64> = v;
  var si: frag<wgmma_row, i32, 64> = j;
  for e in 0..KK unroll {
    let ov = dv[e];
    let oi = di[e];
    let before = sv < ov || (sv == ov && si < oi);
    dv[e] = select(before, sv, ov);
    di[e] = select(before, si, oi);
    sv = select(before, ov, sv);
    si = select(before, oi, si);
  }
}

kernel layouts_row_topk<KK = 8, NB = 256>(
    A: bf16[64, 64] tma(box=[64, 64], swizzle=128B) align(16),
    B: bf16[NB, 64] tma(box=[128, 64], swizzle=128B) align(16),
    TV: f32[64, KK], TI: i32[64, KK])
  grid(1) threads(128)
{
  shared a: bf16[64, 64] swizzle(128B) align(1024);
  shared b: bf16[NB / 128][128, 64] swizzle(128B) align(1024);
  mbarrier full arrivals(1);
  if tid.x == 0 { mbarrier.init full; fence.mbarrier_init; }
  syncthreads;
  if tid.x < 32 {
    elect {
      arrive full expect_tx(8192 + NB * 128);
      tma.load a <- A[0, 0] signal(full);
      for c in 0..NB / 128 {
        tma.load b[c] <- B[128 * c, 0] signal(full);
      }
    }
  }
  wait full parity(0);
  var dv: frag<wgmma_row, f32, 64>[KK] = inf;
  var di: frag<wgmma_row, i32, 64>[KK] = 0;
  for c in 0..NB / 128 {
    var s: frag<wgmma_acc, f32, 64, 128, 16> = 0.0;
    wgmma.fence;
    wgmma s += a * b[c].T;
    wgmma.commit;
    wgmma.wait 0;
    // Take the tile's KK smallest per row, one at a time, masking each out after its insertion.
    for t in 0..KK {
      var v: frag<wgmma_row, f32, 64>;
      var j: frag<wgmma_row, i32, 64>;
      rowargmin v, j <- s;
      topk_insert(dv, di, v, j + 128 * c);
      s = select(s.col == j, inf, s);
    }
  }
  for t in 0..KK unroll {
    for h in 0..2 unroll {
      let r = 16 * (i32(warp) % 4) + i32(lane) / 4 + 8 * h;
      if i32(lane) % 4 == 0 {
        TV[r, t] = dv[t][h];
        TI[r, t] = di[t][h];
      }
    }
  }
}
