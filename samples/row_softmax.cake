// row_softmax: Y[r, :] = softmax(X[r, :]) for a row-major bf16 matrix X[R, C]; math in f32.
//
// Schedule
//   grid    cdiv(R, WARPS) blocks of WARPS warps; warp w of block b owns row r = b * WARPS + w (one warp per
//           row: no shared memory and no block barrier, the row's reductions are warp shuffles).
//   memory  lane l reads the 16-byte vectors X[r, c +: 8] for c = 8l, 8l + 256, ... (bf16x8), so each
//           warp-wide load covers 512 contiguous bytes of the row.  requires C % 8 == 0 keeps every vector
//           inside the row and 16-byte aligned (row stride 2C bytes is a multiple of 16).
//   pass 1  online max / sum in the log2 domain: with y = x * log2(e), each lane keeps m = max y and
//           s = sum ex2(y - m) over its elements, rescaling s by ex2(m_old - m_new) when the max grows.
//           Then a 5-step shfl.xor butterfly merges (m, s) pairs across the warp:
//             m' = max(m, m_o);  s' = s * ex2(m - m') + s_o * ex2(m_o - m')
//           after which every lane holds the row's max and sum.  ex2 is the single MUFU.EX2 instruction;
//           the log2(e) pre-scaling makes exp(x - max) == ex2(y - m).
//   pass 2  re-read the row (it was just streamed, so it hits in L2 for rows up to several MB in flight),
//           compute ex2(y - m) * (1 / s) in f32, round to bf16 and store 16-byte vectors.
//   traffic 2 reads + 1 write of the row; 1 rcp per row; 2 ex2 per element.
target sm_80;

kernel row_softmax<WARPS = 4>(X: bf16[R, C] align(16), Y: bf16[R, C] align(16))
  requires(R >= 1, C >= 8, C % 8 == 0)
  grid(cdiv(R, WARPS)) threads(WARPS * 32)
{
  let log2e: f32 = 1.4426950408889634;
  let r = i32(block.x) * WARPS + warp;          // warp-uniform: the whole warp takes the same branch
  if r < R {
    // pass 1: per-lane online max and sum over the lane's vectors
    // m starts at a finite sentinel, not -inf: lanes that own no element (C < 256) keep m = -1e30,
    // s = 0, and merging two such lanes computes ex2(0) * 0 = 0 instead of ex2(-inf - -inf) = NaN.
    var m: f32 = -1.0e30;
    var s: f32 = 0.0;
    for c in lane * 8..C step 256 {
      let v = X[r, c +: 8];                      // bf16x8, 16-byte load
      var vmax: f32 = f32(v[0]);
      for j in 1..8 unroll {
        vmax = max(vmax, f32(v[j]));
      }
      let m_new = max(m, vmax * log2e);
      s = s * ex2(m - m_new);                    // rescale the running sum to the new max
      for j in 0..8 unroll {
        s += ex2(f32(v[j]) * log2e - m_new);
      }
      m = m_new;
    }

    // merge (m, s) across the 32 lanes; afterwards every lane holds the row's values
    for k in 0..5 unroll {
      let m_other = shfl.xor(m, 16 >> k);
      let s_other = shfl.xor(s, 16 >> k);
      let m_new = max(m, m_other);
      s = s * ex2(m - m_new) + s_other * ex2(m_other - m_new);
      m = m_new;
    }

    // pass 2: normalise and store
    let inv_s = rcp(s);
    for c in lane * 8..C step 256 {
      let v = X[r, c +: 8];
      var y: f32x8;
      for j in 0..8 unroll {
        y[j] = ex2(f32(v[j]) * log2e - m) * inv_s;
      }
      Y[r, c +: 8] = bf16x8(y);                  // 16-byte store
    }
  }
}
