// row_softmax: Y[r, :] = softmax(X[r, :]) for a row-major matrix X[R, C]; math in f32.  Two kernels with the
// same schedule: row_softmax (bf16) and row_softmax_f16 (f16) - the element type is not a compile-time
// parameter in CAKE, so each dtype has its own kernel (cakec -o puts both into one cubin).
//
// Schedule (memory-bound: each element is read from HBM once and written once; the row is held in registers)
//   width    a row is owned by RW = 2^lg consecutive warps, the fewest (a power of two) whose RW * 32 threads
//            hold C columns with VPT 16-byte vectors each: RW * 32 * VPT * 8 >= C (computed at run time from
//            C; requires C <= WARPS * 32 * VPT * 8).  Defaults WARPS = 8, VPT = 4: C <= 1024 -> one warp per
//            row, 2048 -> 2, 4096 -> 4, 8192 -> the whole block.  VPT (vectors per thread) and WARPS are
//            compile-time (-D): more VPT = more bytes in flight per thread, more registers.
//   grid     cdiv(R, WARPS) blocks of WARPS warps; block b owns rows b * WARPS .. b * WARPS + WARPS - 1 and
//            processes them in RW rounds of WARPS / RW rows (row group g = warp >> lg of the block).
//   registers thread i of the row group holds the vectors X[r, (k * 32 * RW + i) * 8 +: 8], k = 0 .. VPT-1,
//            as VPT * 8 f32 values; each warp-wide load covers 512 contiguous bytes of the row.  Columns
//            past C (and rows past R) are masked: they read as -inf, contribute ex2(-inf) = 0 and are not
//            stored.  The guards also state r >= 0 and c >= 0, which hold but which the verifier could only
//            prove slowly through the shifts by the run-time lg.
//   reduce   max: per-thread max, warp.max butterfly, then (RW > 1) one f32 per warp through shared memory
//            red_max[WARPS] and a block barrier; every thread of the row combines its row's RW entries
//            (an unrolled pass over all WARPS entries that keeps those with w >> lg == g: constant indices).
//            sum: the same with red_sum[WARPS].  Two barriers per round; the separate arrays make them
//            enough (a round's writes to one array come after the barrier that follows the previous reads).
//   math     e = ex2(x * log2(e) - max * log2(e)) (one FFMA + one MUFU.EX2 per element, kept in registers
//            in place of x), then y = e * rcp(sum) rounded to bf16/f16 and stored as 16-byte vectors.
//   traffic  1 read + 1 write of the matrix; 1 ex2 per element.
//   measured H200 (--arch sm_90, bench/perf_gemm_softmax.py, CUDA-graph timing), defaults, bf16 and f16 alike:
//            faster than torch.softmax on every shape R in {4096, 16384, 65536} x C in {1024 .. 8192}:
//            1.4x (65536x1024) to 3.7x (65536x8192), 3.9 TB/s read+write at 65536 rows; -D WARPS=4 is a few
//            percent faster for C <= 2048.  (Measured before the two verifier-friendly rewrites of the reduce
//            and the guards, which ptxas compiles to 16 fewer instructions; not re-measured.)
//   shape    requires C % 8 == 0 (16-byte vectors stay inside the row and aligned: the row stride 2C bytes
//            is a multiple of 16) and C <= WARPS * 32 * VPT * 8; WARPS a power of two.
//   verify   the i32 wrap-around proofs of r (a product with a shift by the run-time lg) are beyond the solver's
//            share of the limit: warnings E0672, neither proven nor refuted (--verify-timeout=10000 proves them).
target sm_80;

kernel row_softmax<WARPS = 8, VPT = 4>(X: bf16[R, C] align(16), Y: bf16[R, C] align(16))
  requires(R >= 1, C >= 8, C % 8 == 0, C <= WARPS * 32 * VPT * 8, WARPS <= 32, (WARPS & (WARPS - 1)) == 0)
  grid(cdiv(R, WARPS)) threads(WARPS * 32)
{
  shared red_max: f32[WARPS];
  shared red_sum: f32[WARPS];
  let log2e: f32 = 1.4426950408889634;
  // lg = log2 of the warps per row: the smallest with (32 * VPT * 8) << lg >= C
  let lg = select(C > 32 * VPT * 8, 1, 0) + select(C > 64 * VPT * 8, 1, 0) + select(C > 128 * VPT * 8, 1, 0) +
           select(C > 256 * VPT * 8, 1, 0) + select(C > 512 * VPT * 8, 1, 0);
  let rw = 1 << lg;                                     // warps per row
  let g = warp >> lg;                                   // row group in the block
  let first = g << lg;                                  // its first warp
  let i = i32(tid.x) - first * 32;                      // thread in the row group

  for round in 0..rw {
    let r = i32(block.x) * WARPS + round * (WARPS >> lg) + g;   // warp-uniform
    // load the row (masked past R and C)
    var x: f32[VPT * 8];
    for k in 0..VPT unroll {
      let c = (k * 32 * rw + i) * 8;
      if r >= 0 && r < R && c >= 0 && c < C {
        let v = f32x8(X[r, c +: 8]);                    // 16-byte load
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
    if lg > 0 {                                         // block-uniform
      if lane == 0 {
        red_max[warp] = m;
      }
      syncthreads;
      for w in 0..WARPS unroll {                        // the row's entries: warps first .. first + rw - 1
        if (w >> lg) == g {
          m = max(m, red_max[w]);
        }
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
    if lg > 0 {
      if lane == 0 {
        red_sum[warp] = s;
      }
      syncthreads;
      s = 0.0;
      for w in 0..WARPS unroll {
        if (w >> lg) == g {
          s += red_sum[w];
        }
      }
    }

    // normalise and store
    let inv_s = rcp(s);
    for k in 0..VPT unroll {
      let c = (k * 32 * rw + i) * 8;
      if r >= 0 && r < R && c >= 0 && c < C {
        var y: f32x8;
        for j in 0..8 unroll {
          y[j] = x[k * 8 + j] * inv_s;
        }
        Y[r, c +: 8] = bf16x8(y);                          // 16-byte store
      }
    }
  }
}

kernel row_softmax_f16<WARPS = 8, VPT = 4>(X: f16[R, C] align(16), Y: f16[R, C] align(16))
  requires(R >= 1, C >= 8, C % 8 == 0, C <= WARPS * 32 * VPT * 8, WARPS <= 32, (WARPS & (WARPS - 1)) == 0)
  grid(cdiv(R, WARPS)) threads(WARPS * 32)
{
  shared red_max: f32[WARPS];
  shared red_sum: f32[WARPS];
  let log2e: f32 = 1.4426950408889634;
  // lg = log2 of the warps per row: the smallest with (32 * VPT * 8) << lg >= C
  let lg = select(C > 32 * VPT * 8, 1, 0) + select(C > 64 * VPT * 8, 1, 0) + select(C > 128 * VPT * 8, 1, 0) +
           select(C > 256 * VPT * 8, 1, 0) + select(C > 512 * VPT * 8, 1, 0);
  let rw = 1 << lg;                                     // warps per row
  let g = warp >> lg;                                   // row group in the block
  let first = g << lg;                                  // its first warp
  let i = i32(tid.x) - first * 32;                      // thread in the row group

  for round in 0..rw {
    let r = i32(block.x) * WARPS + round * (WARPS >> lg) + g;   // warp-uniform
    // load the row (masked past R and C)
    var x: f32[VPT * 8];
    for k in 0..VPT unroll {
      let c = (k * 32 * rw + i) * 8;
      if r >= 0 && r < R && c >= 0 && c < C {
        let v = f32x8(X[r, c +: 8]);                    // 16-byte load
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
    if lg > 0 {                                         // block-uniform
      if lane == 0 {
        red_max[warp] = m;
      }
      syncthreads;
      for w in 0..WARPS unroll {                        // the row's entries: warps first .. first + rw - 1
        if (w >> lg) == g {
          m = max(m, red_max[w]);
        }
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
    if lg > 0 {
      if lane == 0 {
        red_sum[warp] = s;
      }
      syncthreads;
      s = 0.0;
      for w in 0..WARPS unroll {
        if (w >> lg) == g {
          s += red_sum[w];
        }
      }
    }

    // normalise and store
    let inv_s = rcp(s);
    for k in 0..VPT unroll {
      let c = (k * 32 * rw + i) * 8;
      if r >= 0 && r < R && c >= 0 && c < C {
        var y: f32x8;
        for j in 0..8 unroll {
          y[j] = x[k * 8 + j] * inv_s;
        }
        Y[r, c +: 8] = f16x8(y);                          // 16-byte store
      }
    }
  }
}
