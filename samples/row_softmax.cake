// row_softmax: Y[r, :] = softmax(X[r, :]) for a row-major matrix X[R, C]; math in f32.  Two kernels with the
// same schedule: row_softmax (bf16) and row_softmax_f16 (f16) - the element type is not a compile-time
// parameter in CAKE, so each dtype has its own kernel (cakec -o puts both into one cubin).
//
// Schedule (memory-bound: each element is read from HBM once and written once)
//   grid     cdiv(R, WARPS / ROW_WARPS) blocks of WARPS warps; ROW_WARPS consecutive warps own one row
//            (row group g = warp / ROW_WARPS of block b owns row r = b * (WARPS / ROW_WARPS) + g).
//   registers the row lives in registers: thread i of the row group (RT = 32 * ROW_WARPS threads) holds the
//            VPT 16-byte vectors X[r, (k * RT + i) * 8 +: 8], k = 0 .. VPT-1, as VPT * 8 f32 values, so one
//            row covers up to RT * VPT * 8 columns (requires C <= RT * VPT * 8; pick the smallest variant
//            that fits, e.g. C = 1024: -D ROW_WARPS=1 -D VPT=4; C = 8192: -D ROW_WARPS=8 -D VPT=4).
//            Each warp-wide load covers 512 contiguous bytes of the row.  Columns past C (and rows past R)
//            are masked: they read as -inf, contribute ex2(-inf) = 0 and are not stored.
//   reduce   max: per-thread max, warp.max butterfly, then (ROW_WARPS > 1) one f32 per warp through shared
//            memory red_max[WARPS] and a block barrier; every thread of the row combines its row's
//            ROW_WARPS entries.  sum: the same with red_sum[WARPS] (a separate array, so the second
//            round needs no barrier against readers of the first).
//   math     e = ex2(x * log2(e) - max * log2(e)) (one FFMA + one MUFU.EX2 per element, kept in registers
//            in place of x), then y = e * rcp(sum) rounded to bf16/f16 and stored as 16-byte vectors.
//   traffic  1 read + 1 write of the row; 1 ex2 per element; 2 barriers per block when ROW_WARPS > 1.
//   shape    requires C % 8 == 0 (16-byte vectors stay inside the row and aligned: the row stride 2C bytes
//            is a multiple of 16) and C <= 32 * ROW_WARPS * VPT * 8.
target sm_80;

kernel row_softmax<WARPS = 4, ROW_WARPS = 1, VPT = 4>(X: bf16[R, C] align(16), Y: bf16[R, C] align(16))
  requires(R >= 1, C >= 8, C % 8 == 0, C <= 32 * ROW_WARPS * VPT * 8, WARPS % ROW_WARPS == 0)
  grid(cdiv(R, WARPS / ROW_WARPS)) threads(WARPS * 32)
{
  shared red_max: f32[WARPS];
  shared red_sum: f32[WARPS];
  let log2e: f32 = 1.4426950408889634;
  let g = warp / ROW_WARPS;                              // row group in the block
  let first = g * ROW_WARPS;                             // its first warp
  let i = i32(tid.x) - first * 32;                       // thread in the row group
  let r = i32(block.x) * (WARPS / ROW_WARPS) + g;        // warp-uniform

  // load the row (masked past R and C)
  var x: f32[VPT * 8];
  for k in 0..VPT unroll {
    let c = (k * 32 * ROW_WARPS + i) * 8;
    if r < R && c < C {
      let v = f32x8(X[r, c +: 8]);                     // 16-byte load
      for j in 0..8 unroll {
        x[k * 8 + j] = v[j];
      }
    } else {
      for j in 0..8 unroll {
        x[k * 8 + j] = -inf;
      }
    }
  }

  // row max
  var m: f32 = x[0];
  for k in 1..VPT * 8 unroll {
    m = max(m, x[k]);
  }
  m = warp.max(m);
  if ROW_WARPS > 1 {
    if lane == 0 {
      red_max[warp] = m;
    }
    syncthreads;
    for w in 0..ROW_WARPS unroll {
      m = max(m, red_max[first + w]);
    }
  }

  // exponentials (in place) and row sum
  let mscaled = m * log2e;
  var s: f32 = 0.0;
  for k in 0..VPT * 8 unroll {
    x[k] = ex2(fma(x[k], log2e, -mscaled));
    s += x[k];
  }
  s = warp.sum(s);
  if ROW_WARPS > 1 {
    if lane == 0 {
      red_sum[warp] = s;
    }
    syncthreads;
    s = 0.0;
    for w in 0..ROW_WARPS unroll {
      s += red_sum[first + w];
    }
  }

  // normalise and store
  let inv_s = rcp(s);
  for k in 0..VPT unroll {
    let c = (k * 32 * ROW_WARPS + i) * 8;
    if r < R && c < C {
      var y: f32x8;
      for j in 0..8 unroll {
        y[j] = x[k * 8 + j] * inv_s;
      }
      Y[r, c +: 8] = bf16x8(y);                        // 16-byte store
    }
  }
}

kernel row_softmax_f16<WARPS = 4, ROW_WARPS = 1, VPT = 4>(X: f16[R, C] align(16), Y: f16[R, C] align(16))
  requires(R >= 1, C >= 8, C % 8 == 0, C <= 32 * ROW_WARPS * VPT * 8, WARPS % ROW_WARPS == 0)
  grid(cdiv(R, WARPS / ROW_WARPS)) threads(WARPS * 32)
{
  shared red_max: f32[WARPS];
  shared red_sum: f32[WARPS];
  let log2e: f32 = 1.4426950408889634;
  let g = warp / ROW_WARPS;
  let first = g * ROW_WARPS;
  let i = i32(tid.x) - first * 32;
  let r = i32(block.x) * (WARPS / ROW_WARPS) + g;

  var x: f32[VPT * 8];
  for k in 0..VPT unroll {
    let c = (k * 32 * ROW_WARPS + i) * 8;
    if r < R && c < C {
      let v = f32x8(X[r, c +: 8]);
      for j in 0..8 unroll {
        x[k * 8 + j] = v[j];
      }
    } else {
      for j in 0..8 unroll {
        x[k * 8 + j] = -inf;
      }
    }
  }

  var m: f32 = x[0];
  for k in 1..VPT * 8 unroll {
    m = max(m, x[k]);
  }
  m = warp.max(m);
  if ROW_WARPS > 1 {
    if lane == 0 {
      red_max[warp] = m;
    }
    syncthreads;
    for w in 0..ROW_WARPS unroll {
      m = max(m, red_max[first + w]);
    }
  }

  let mscaled = m * log2e;
  var s: f32 = 0.0;
  for k in 0..VPT * 8 unroll {
    x[k] = ex2(fma(x[k], log2e, -mscaled));
    s += x[k];
  }
  s = warp.sum(s);
  if ROW_WARPS > 1 {
    if lane == 0 {
      red_sum[warp] = s;
    }
    syncthreads;
    s = 0.0;
    for w in 0..ROW_WARPS unroll {
      s += red_sum[first + w];
    }
  }

  let inv_s = rcp(s);
  for k in 0..VPT unroll {
    let c = (k * 32 * ROW_WARPS + i) * 8;
    if r < R && c < C {
      var y: f32x8;
      for j in 0..8 unroll {
        y[j] = x[k * 8 + j] * inv_s;
      }
      Y[r, c +: 8] = f16x8(y);
    }
  }
}
