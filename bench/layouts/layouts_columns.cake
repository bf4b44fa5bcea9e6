// layouts_columns: device check of column vectors (bench/layouts_check.py).
//   D = A[64, 64] * B[128, 64]^T in a 64 x 128 wgmma accumulator; warp w of the warpgroup holds rows 16w .. 16w+15.
//   CS[w, n]  = colsum over warp w's rows            CM[w, n] = colmax(D) (warp w)
//   AV[w, n], AI[w, n] = colargmin: the minimum and its tile row (ties: smallest row)
//   X[r, n]   = D[r, n] - colmax(D)[w(r), n]         (a column vector broadcast along the rows)
//   G[n]     += sum of all 64 rows                    (red.add of each warp's column vector)
//   mma.sync m16n8k16 on the first warp, C = MA[16, 16] * MB[8, 16]^T: MO[16, 8] = C * rcp(colsum(C)),
//   MV / MI = colargmax(C)
target sm_90a;

kernel layouts_columns(
    A: bf16[64, 64] tma(box=[64, 64], swizzle=128B) align(16),
    B: bf16[128, 64] tma(box=[128, 64], swizzle=128B) align(16),
    CS: f32[4, 128], CM: f32[4, 128], AV: f32[4, 128], AI: i32[4, 128], X: f32[64, 128], G: f32[128],
    MA: bf16[16, 16], MB: bf16[8, 16], MO: f32[16, 8], MV: f32[8], MI: i32[8])
  grid(1) threads(128)
{
  shared a: bf16[64, 64] swizzle(128B) align(1024);
  shared b: bf16[128, 64] swizzle(128B) align(1024);
  shared ma: bf16[16, 16];
  shared mb: bf16[8, 16];
  mbarrier full arrivals(1);
  if tid.x == 0 { mbarrier.init full; fence.mbarrier_init; }
  let t = i32(tid.x);
  ma[t / 16 * 2 + 0, t % 16] = MA[t / 16 * 2 + 0, t % 16];
  ma[t / 16 * 2 + 1, t % 16] = MA[t / 16 * 2 + 1, t % 16];
  if t < 128 { mb[t / 16, t % 16] = MB[t / 16, t % 16]; }
  syncthreads;
  if tid.x < 32 {
    elect {
      arrive full expect_tx(8192 + 16384);
      tma.load a <- A[0, 0] signal(full);
      tma.load b <- B[0, 0] signal(full);
    }
  }
  wait full parity(0);
  var acc: frag<wgmma_acc, f32, 64, 128, 16> = 0.0;
  wgmma.fence;
  wgmma acc += a * b.T;
  wgmma.commit;
  wgmma.wait 0;
  let w = i32(warp);
  store CS[w, 0] <- colsum(acc);
  let mx = colmax(acc);
  store CM[w, 0] <- mx;
  var best: frag<wgmma_col, f32, 128>;
  var row: frag<wgmma_col, i32, 128>;
  colargmin best, row <- acc;
  store AV[w, 0] <- best;
  store AI[w, 0] <- row;
  store X[0, 0] <- acc - mx;
  red.add G[0] <- colsum(acc);
  if warp == 0 {
    var fa: frag<mma_a, bf16, 16, 8, 16>;
    var fb: frag<mma_b, bf16, 16, 8, 16>;
    var c: frag<mma_c, f32, 16, 8, 16> = 0.0;
    ldmatrix fa <- ma[lane % 16, lane / 16 * 8 +: 8];
    ldmatrix fb <- mb[lane % 8, lane / 8 % 2 * 8 +: 8];
    mma.sync c += fa * fb;
    var v: frag<mma_col, f32, 8>;
    var i: frag<mma_col, i32, 8>;
    colargmax v, i <- c;
    store MO[0, 0] <- c * rcp(colsum(c));
    store MV[0] <- v;
    store MI[0] <- i;
  }
}
