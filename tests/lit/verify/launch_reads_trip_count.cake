// A loop's trip count read from memory: each CTA takes one sequence of a variable-length batch, its bounds
// from cu (i32[NP1], which the kernel never writes), read modulo K + 1 at the block's sequence.  The verifier
// takes u32(cu[n]) % u32(K + 1) as an input of the launch, like a shape variable: the sync analysis
// enumerates the k-tile counts those values allow, empty sequences included.
// 'varpipe' verifies.  'varpipe_empty_fill' has the producer fill one stage even for an empty sequence, which no
// consumer waits for: a copy still in flight at exit, only when bos = eos (the counterexample shows the values
// read).  'varpipe_written' writes cu, so what it reads is no input of the launch: E0601 as for any load.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;

kernel varpipe<BM = 64, BN = 64, BK = 64, S = 2>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16),
    cu: i32[NP1])
  requires(M % BM == 0, N % BN == 0, K % 8 == 0, K <= 1073741824, NP1 >= 2, NP1 <= 65536)
  grid(M / BM, N / BN, NP1 - 1) threads(256)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  let n = i32(block.z);
  let bos = i32(u32(cu[n]) % u32(K + 1));
  let eos = i32(u32(cu[n + 1]) % u32(K + 1));
  let k_tiles = cdiv(max(eos - bos, 0), BK);

  role load = warpgroup(0) {
    if load.warp == 0 {
      elect {
        for k in 0..k_tiles {
          let s = k % S;
          wait empty[s] parity(((k / S) & 1) ^ 1);
          arrive full[s] expect_tx((BM + BN) * BK * 2);
          tma.load a[s] <- A[i32(block.x) * BM, bos + k * BK] signal(full[s]);
          tma.load b[s] <- B[i32(block.y) * BN, bos + k * BK] signal(full[s]);
        }
      }
    }
  }

  role math = warpgroup(1) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for k in 0..k_tiles {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s] * b[s].T;
      wgmma.commit;
      wgmma.wait 0;
      elect {
        arrive empty[s];
      }
    }
    store C[i32(block.x) * BM, i32(block.y) * BN] <- bf16(acc);
  }
}

kernel varpipe_empty_fill<BM = 64, BN = 64, BK = 64, S = 2>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16),
    cu: i32[NP1])
  requires(M % BM == 0, N % BN == 0, K % 8 == 0, K <= 1073741824, NP1 >= 2, NP1 <= 65536)
  grid(M / BM, N / BN, NP1 - 1) threads(256)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  let n = i32(block.z);
  let bos = i32(u32(cu[n]) % u32(K + 1));
  let eos = i32(u32(cu[n + 1]) % u32(K + 1));
  let k_tiles = cdiv(max(eos - bos, 0), BK);

  role load = warpgroup(0) {
    if load.warp == 0 {
      elect {
        for k in 0..max(k_tiles, 1) {
          let s = k % S;
          wait empty[s] parity(((k / S) & 1) ^ 1);
          arrive full[s] expect_tx((BM + BN) * BK * 2);
          tma.load a[s] <- A[i32(block.x) * BM, bos + k * BK] signal(full[s]);
          tma.load b[s] <- B[i32(block.y) * BN, bos + k * BK] signal(full[s]);
        }
      }
    }
  }

  role math = warpgroup(1) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for k in 0..k_tiles {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s] * b[s].T;
      wgmma.commit;
      wgmma.wait 0;
      elect {
        arrive empty[s];
      }
    }
    store C[i32(block.x) * BM, i32(block.y) * BN] <- bf16(acc);
  }
}

kernel varpipe_written<BM = 64, BN = 64, BK = 64, S = 2>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16),
    cu: i32[NP1])
  requires(M % BM == 0, N % BN == 0, K % 8 == 0, K <= 1073741824, NP1 >= 2, NP1 <= 65536)
  grid(M / BM, N / BN, NP1 - 1) threads(256)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  let n = i32(block.z);
  let bos = i32(u32(cu[n]) % u32(K + 1));
  let eos = i32(u32(cu[n + 1]) % u32(K + 1));
  let k_tiles = cdiv(max(eos - bos, 0), BK);

  role load = warpgroup(0) {
    if load.warp == 0 {
      elect {
        for k in 0..k_tiles {
          let s = k % S;
          wait empty[s] parity(((k / S) & 1) ^ 1);
          arrive full[s] expect_tx((BM + BN) * BK * 2);
          tma.load a[s] <- A[i32(block.x) * BM, bos + k * BK] signal(full[s]);
          tma.load b[s] <- B[i32(block.y) * BN, bos + k * BK] signal(full[s]);
        }
      }
    }
  }

  role math = warpgroup(1) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for k in 0..k_tiles {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s] * b[s].T;
      wgmma.commit;
      wgmma.wait 0;
      elect {
        arrive empty[s];
      }
    }
    store C[i32(block.x) * BM, i32(block.y) * BN] <- bf16(acc);
    if math.thread == 0 {
      cu[n] = 0;
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@95 E0612 {{tma.load by load (k = 0) into 'a[0]' may still be in flight when the kernel exits}}
// expected-note@95 {{counterexample: loop 'k' runs 1 iteration, loop 'k' runs 0 iterations (M = 64, K = 768, N = 64, NP1 = 2, u32(cu[n + 1]) % u32(K + 1) = 704, u32(cu[n]) % u32(K + 1) = 768)}}
// expected-error@145 E0601 {{could not prove the synchronisation protocol: the loop's upper bound cannot be evaluated: it depends on a value loaded from memory}}
// expected-error@158 E0601 {{could not prove the synchronisation protocol: the loop's upper bound cannot be evaluated: it depends on a value loaded from memory}}
