// RUN: %cakec --verify-only --verify-diagnostics %s
// A cp.async ring GEMM whose barrier sits *after* the refill instead of before it: iteration kt refills
// stage (kt + S - 1) % S = (kt - 1) % S while slower warps may still ldmatrix that stage for tile kt - 1.
target sm_80;

kernel ring<BM = 64, BN = 64, BK = 32, S = 3>(A: bf16[M, K] align(16), B: bf16[K, N] align(16), C: f32[M, N])
  requires(M % BM == 0, N % BN == 0, K % BK == 0, K >= BK)
  grid(N / BN, M / BM) threads(128)
{
  shared sa: bf16[S][BM, BK] align(128);
  let t = i32(tid.x);
  let m0 = i32(block.y) * BM;
  let kt_count = K / BK;
  var af: frag<mma_a, bf16, 16, 8, 16>;
  for q in 0..S - 1 unroll {
    if q < kt_count {
      for v in 0..(BM * BK / 8) / 128 unroll {
        let idx = v * 128 + t;
        cp.async sa[q][idx / (BK / 8), (idx % (BK / 8)) * 8 +: 8] <- A[m0 + idx / (BK / 8), q * BK + (idx % (BK / 8)) * 8 +: 8];
      }
    }
    cp.async.commit;
  }
  for kt in 0..kt_count {
    cp.async.wait S - 2;
    let nk = kt + S - 1;
    if nk < kt_count {
      for v in 0..(BM * BK / 8) / 128 unroll {
        let idx = v * 128 + t;
        cp.async sa[nk % S][idx / (BK / 8), (idx % (BK / 8)) * 8 +: 8] <- A[m0 + idx / (BK / 8), nk * BK + (idx % (BK / 8)) * 8 +: 8];
      }
    }
    cp.async.commit;
    syncthreads;
    ldmatrix af <- sa[kt % S][warp * 16 + lane % 16, (lane / 16) * 8 +: 8];
  }
  cp.async.wait 0;
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@35 E0655 {{read 'sa[kt % S][warp * 16 + lane % 16, (lane / 16) * 8 +: 8]' races with the write 'sa[nk % S][idx / (BK / 8), (idx % (BK / 8)) * 8 +: 8]': two threads access shared 'sa' in the same barrier interval}}
// expected-note@30 {{the other access: write by thread 0 (warp 0, lane 0), kt = 1, v = 1}}
// expected-note@35 {{counterexample: thread 64 (warp 2, lane 0), kt = 0 reads sa[0, 32, 0 +: 8] while thread 0 (warp 0, lane 0), kt = 1, v = 1 writes sa[0, 32, 0 +: 8], in the same barrier interval (M = 64, N = 64, K = 128)}}
// expected-note@24 {{no block barrier separates them between one iteration of loop 'kt' and the next (the accesses are in different iterations)}}
