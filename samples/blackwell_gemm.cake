// blackwell_gemm: C = A * B^T with bf16 inputs, f32 accumulation in tensor memory and bf16 output, for
// sm_100a (B200).  A[M, K] and B[N, K] row-major (K contiguous), C[M, N] row-major.
// No Blackwell GPU was available: this kernel is verified, estimated and assembled (ptxas, sm_100a), never
// run (docs/blackwell.md).
//
// Schedule: persistent and warp-specialized, one 128 x BN output tile at a time per CTA.
//   grid     num_sms CTAs of 256 threads; CTA b takes tiles b, b + grid, ... (tile p: rows (p / n_tiles) * BM,
//            columns (p % n_tiles) * BN).
//   roles    load     = warp 0: one elected lane issues the TMA copies of A [BM, BK] and B [BN, BK] per k-tile
//                       into an S-stage ring (S = 4: 4 * (16 + 32) KB = 192 KB of shared memory).
//            issue    = warp 1: one elected lane issues tcgen05.mma (M = 128, N = BN, K = 16 per
//                       instruction; BK / 16 = 4 per stage) into the tensor-memory accumulator acc[as] and
//                       commits each stage back to its empty barrier, and the finished tile to tmem_full.
//            epilogue = warpgroup 1 (warps 4..7): tcgen05.ld reads the accumulator 32 columns at a time
//                       (thread t holds row t of the tile), converts to bf16 and stores to C, then releases the
//                       accumulator on tmem_empty.
//   tmem     acc: f32[2][128, BN] = 2 * BN = 512 columns: two accumulators, so the MMA warp computes tile
//            i + 1 into acc[(i + 1) % 2] while the epilogue drains acc[i % 2].  Warp 1 allocates them before
//            the roles start and frees them at the end (the allocating warp deallocates).
//   barriers full[s]  (1 arrival + the TMA bytes), empty[s] (1 arrival: tcgen05.commit after the MMAs that read
//            stage s), tmem_full[a] (1: tcgen05.commit after the tile's last MMA), tmem_empty[a] (4: one
//            elected lane per epilogue warp after its tcgen05.wait.ld).
//   fences   tcgen05.fence.before ahead of each thread synchronization that follows tcgen05 work, and
//            tcgen05.fence.after behind each one that precedes tcgen05 work (PTX ISA memory consistency of
//            tcgen05): around the allocation's syncthreads, after the MMA warp's waits, after the epilogue's
//            wait on tmem_full and before its arrive on tmem_empty.
//   shape    requires M % BM, N % BN, K % BK == 0.
target sm_100a;

kernel blackwell_gemm<BM = 128, BN = 256, BK = 64, S = 4>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0, BM == 128, BK * 2 == 128, BN % 32 == 0, BN <= 256, S >= 2,
           (M / BM) * (N / BN) <= 2147482623, (M / BM) * (N / BN) * (K / BK) <= 2147483647)
  grid(num_sms) threads(256)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  tmem acc: f32[2][128, BN];
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(1);
  mbarrier tmem_full[2] arrivals(1);
  mbarrier tmem_empty[2] arrivals(4);

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    mbarrier.init tmem_full;
    mbarrier.init tmem_empty;
    fence.mbarrier_init;
  }
  if warp == 1 {
    tcgen05.alloc acc;
    tcgen05.relinquish;
  }
  tcgen05.fence.before;
  syncthreads;
  tcgen05.fence.after;

  let n_tiles = N / BN;
  let tiles = (M / BM) * n_tiles;
  let k_tiles = K / BK;
  let first = i32(block.x);
  let stride = i32(grid_dim.x);

  role load = warp(0) {
    elect {
      var it: i32 = 0;
      for p in first..tiles step stride {
        let m0 = (p / n_tiles) * BM;
        let n0 = (p % n_tiles) * BN;
        for k in 0..k_tiles {
          let s = it % S;
          wait empty[s] parity(((it / S) & 1) ^ 1);
          arrive full[s] expect_tx((BM + BN) * BK * 2);
          tma.load a[s] <- A[m0, k * BK] signal(full[s]);
          tma.load b[s] <- B[n0, k * BK] signal(full[s]);
          it += 1;
        }
      }
    }
  }

  role issue = warp(1) {
    elect {
      var it: i32 = 0;
      var t: i32 = 0;
      for p in first..tiles step stride {
        let as = t % 2;
        wait tmem_empty[as] parity(((t / 2) & 1) ^ 1);
        tcgen05.fence.after;
        for k in 0..k_tiles {
          let s = it % S;
          wait full[s] parity((it / S) & 1);
          tcgen05.fence.after;
          tcgen05.mma acc[as] += a[s] * b[s].T accumulate(k > 0);
          tcgen05.commit empty[s];           // the stage is free once these MMAs have read it
          it += 1;
        }
        tcgen05.commit tmem_full[as];        // the accumulator is complete once every MMA of the tile is
        t += 1;
      }
    }
  }

  role epilogue = warpgroup(1) {
    var t: i32 = 0;
    for p in first..tiles step stride {
      let m0 = (p / n_tiles) * BM;
      let n0 = (p % n_tiles) * BN;
      let as = t % 2;
      wait tmem_full[as] parity((t / 2) & 1);
      tcgen05.fence.after;
      for c in 0..BN / 32 {
        var f: frag<tmem_acc, f32, 128, 32, 16>;
        tcgen05.ld f <- acc[as][:, 32 * c +: 32];
        tcgen05.wait.ld;
        store C[m0, n0 + 32 * c] <- bf16(f);
      }
      tcgen05.fence.before;
      elect {
        arrive tmem_empty[as];
      }
      t += 1;
    }
  }

  tcgen05.fence.before;
  syncthreads;
  tcgen05.fence.after;
  if warp == 1 {
    tcgen05.dealloc acc;
  }
}
