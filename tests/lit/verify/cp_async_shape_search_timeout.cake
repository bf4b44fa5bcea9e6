// The cp.async-group family's search for the smallest shapes runs out of its solver limit at
// --verify-timeout=1 (a non-linear requires: the product of the shapes modulo a prime): that is a timeout
// (E0602), not "no shape satisfying requires(...)" (E0601).  The kernel is local_cp_async_missing_wait.cake's.
// RUN: %expect-exit 1 %cakec %s --verify-only --verify-timeout=1 2>&1 | %FileCheck %s
// CHECK-NOT: no shape satisfying requires
// CHECK: cp_async_shape_search_timeout.cake:[[@LINE+4]]:8: error: the solver timed out after 1 ms proving that every cp.async.wait and tma.store.wait covers the shared accesses after it [E0602]
// CHECK-NOT: no shape satisfying requires
target sm_80;

kernel ampere_gemm<BM = 128, BN = 128, BK = 32, WM = 64, WN = 64, S = 3>(
    A: bf16[M, K] align(16), B: bf16[K, N] align(16), C: bf16[M, N] align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0, (M * N * K) % 1000003 == 77,
           BM % WM == 0, BN % WN == 0, WM % 16 == 0, WN % 16 == 0, BK % 16 == 0, S >= 2,
           (BM * BK / 8) % (32 * (BM / WM) * (BN / WN)) == 0,
           (BK * BN / 8) % (32 * (BM / WM) * (BN / WN)) == 0)
  grid(N / BN, M / BM) threads(32 * (BM / WM) * (BN / WN))
{
  shared sa: bf16[S][BM, BK + 8] align(128);    // A tiles, padded rows
  shared sb: bf16[S][BK, BN + 8] align(128);    // B tiles, padded rows

  let t = i32(tid.x);
  let m0 = i32(block.y) * BM;
  let n0 = i32(block.x) * BN;
  let wm = warp / (BN / WN);
  let wn = warp % (BN / WN);
  let kt_count = K / BK;

  var acc: frag<mma_c, f32, 16, 8, 16>[WM / 16][WN / 8] = 0.0;
  var af: frag<mma_a, bf16, 16, 8, 16>[WM / 16];
  var bf: frag<mma_b, bf16, 16, 8, 16>[WN / 8];

  // prologue: tiles 0 .. S-2
  for p in 0..S - 1 unroll {
    if p < kt_count {
      for v in 0..(BM * BK / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / (BK / 8);
        let c = (idx % (BK / 8)) * 8;
        cp.async sa[p][r, c +: 8] <- A[m0 + r, p * BK + c +: 8];
      }
      for v in 0..(BK * BN / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / (BN / 8);
        let c = (idx % (BN / 8)) * 8;
        cp.async sb[p][r, c +: 8] <- B[p * BK + r, n0 + c +: 8];
      }
    }
    cp.async.commit;
  }

  for kt in 0..kt_count {
    syncthreads;             // ... all threads' parts; stage (kt - 1) % S is free

    // refill the stage everyone just finished with tile kt + S - 1
    let nk = kt + S - 1;
    if nk < kt_count {
      let ns = nk % S;
      for v in 0..(BM * BK / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / (BK / 8);
        let c = (idx % (BK / 8)) * 8;
        cp.async sa[ns][r, c +: 8] <- A[m0 + r, nk * BK + c +: 8];
      }
      for v in 0..(BK * BN / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / (BN / 8);
        let c = (idx % (BN / 8)) * 8;
        cp.async sb[ns][r, c +: 8] <- B[nk * BK + r, n0 + c +: 8];
      }
    }
    cp.async.commit;

    let s = kt % S;
    for kk in 0..BK / 16 unroll {
      // A fragments: ldmatrix.x4; lane L supplies row L % 16 of the 16x16 block, k half L / 16.
      for i in 0..WM / 16 unroll {
        ldmatrix af[i] <- sa[s][wm * WM + i * 16 + lane % 16, kk * 16 + (lane / 16) * 8 +: 8];
      }
      // B fragments: ldmatrix.x4.trans fills two n8 fragments; lane L supplies k row L % 16 of the
      // k16 x n16 block, n half L / 16 (matrices: k0-7/n0-7, k8-15/n0-7, k0-7/n8-15, k8-15/n8-15).
      for j in 0..WN / 8 step 2 unroll {
        ldmatrix.trans bf[j], bf[j + 1] <- sb[s][kk * 16 + lane % 16, wn * WN + j * 8 + (lane / 16) * 8 +: 8];
      }
      for i in 0..WM / 16 unroll {
        for j in 0..WN / 8 unroll {
          mma.sync acc[i][j] += af[i] * bf[j];
        }
      }
    }
  }
  cp.async.wait 0;           // drain the (empty) trailing groups before the block exits

  // epilogue: f32 -> bf16, stored at the m16n8 accumulator lane layout
  for i in 0..WM / 16 unroll {
    for j in 0..WN / 8 unroll {
      store C[m0 + wm * WM + i * 16, n0 + wn * WN + j * 8] <- bf16(acc[i][j]);
    }
  }
}
