// kmeans_assign (sm_80 / sm_86, Ampere tensor cores; runs on later GPUs too): the k-means assignment step
// of assign_sm90.cake with mma.sync and cp.async, same interface and contract:
//   L[b, i] = argmin_c ||X[b, i] - C[b, c]||^2 (ties: the smallest c),
//   MinD[b, i] = CN[b, L[b, i]] - 2 X[b, i] . C[b, L[b, i]]   (add ||x||^2 for the squared distance).
// X[B, N, D], C[B, K, D] of element type T (bf16 or f16), CN[B, K] f32 = ||C[b, c]||^2 (unpadded: the
// columns of the last tile past K get +inf norms in the epilogue, so they lose every comparison), L[B, N] i32,
// MinD[B, N] f32.  D == HD, a multiple of 16 up to 256; any N, K, B.
//
// Schedule
//   grid     cdiv(N, BM) x B blocks of 8 warps; block (x, b) owns rows x * BM +: BM of batch b (BM = 128),
//            warp w rows 16 w +: 16.
//   X        the block's rows are copied once (cp.async, zero-filled past N) into shared memory and each
//            warp loads its 16 rows into HD / 16 mma_a fragments (ldmatrix), kept for the whole row tile.
//   centroids tiles of BN centroids (their HD columns and BN norms, 4-byte copies zero-filled past K) stream
//            through an S-stage cp.async ring (rows padded by 8 elements: conflict-free ldmatrix); one
//            barrier per tile, the refill of the
//            stage freed by it issued right after, so S - 1 tiles are in flight during the mma.
//   mma      per tile and warp: HD / 16 k-steps x BN / 8 mma.sync m16n8k16 (B fragments by ldmatrix.x4 of the
//            [BN, HD] tile: two n8 fragments per instruction, no transpose: the centroids are K-major).
//   epilog   per tile, in registers: each thread's running minimum of its two rows over its columns (norms as
//            pairs of adjacent columns from shared memory; balanced trees; strict <, so an earlier tile keeps
//            a tie); after the last tile the quad's four minima are merged (ties: the smaller column) and
//            stored, masked by N.
target sm_80;

// Ring stage s <- centroid tile kt: its BN rows of C (zero-filled past K) and BN norms.
fn load_centroids(s: i32, kt: i32) {
  for v in 0..(BN * HD / 8) / 256 unroll {
    let idx = v * 256 + i32(tid.x);
    let r = idx / (HD / 8);
    let c = (idx % (HD / 8)) * 8;
    cp.async cs[s][r, c +: 8] <- C[b, kt * BN + r, c +: 8] valid(kt * BN + r < K);
  }
  if i32(tid.x) < BN {
    cp.async cns[s][i32(tid.x)] <- CN[b, kt * BN + i32(tid.x)] valid(kt * BN + i32(tid.x) < K);
  }
}

kernel kmeans_assign_sm80<T: type = bf16, BM = 128, BN = 64, HD = 128, S = 3>(
    X: T[B, N, D] align(16),
    C: T[B, K, D] align(16),
    CN: f32[B, K],
    L: i32[B, N],
    MinD: f32[B, N])
  requires(D == HD, HD % 16 == 0, HD <= 256, BM == 128, BN % 16 == 0, BN <= 128, S >= 2,
           (BN * HD / 8) % 256 == 0, (BM * HD / 8) % 256 == 0,
           N <= 2147483392)
  grid(cdiv(N, BM), B) threads(256)
{
  shared xs: T[BM, HD + 8] align(128);
  shared cs: T[S][BN, HD + 8] align(128);
  shared cns: f32[S][BN] align(16);

  let t = i32(tid.x);
  let b = i32(block.y);
  let m0 = i32(block.x) * BM;
  let tiles = cdiv(K, BN);

  for v in 0..(BM * HD / 8) / 256 unroll {
    let idx = v * 256 + t;
    let r = idx / (HD / 8);
    let c = (idx % (HD / 8)) * 8;
    cp.async xs[r, c +: 8] <- X[b, m0 + r, c +: 8] valid(m0 + r < N);
  }
  cp.async.commit;
  for q in 0..S - 1 unroll {
    if q < tiles {
      load_centroids(q, q);
    }
    cp.async.commit;
  }
  cp.async.wait S - 1;                 // the X group (the oldest) has landed
  syncthreads;
  var xa: frag<mma_a, T, 16, 8, 16>[HD / 16];
  for kk in 0..HD / 16 unroll {
    ldmatrix xa[kk] <- xs[warp * 16 + lane % 16, kk * 16 + (lane / 16) * 8 +: 8];
  }

  var bv: f32[2];
  var bi: i32[2];
  for r in 0..2 unroll {
    bv[r] = inf;
    bi[r] = 0;
  }
  for kt in 0..tiles {
    cp.async.wait S - 2;               // tile kt (this thread's copies)
    syncthreads;                       // ... everyone's; stage (kt - 1) % S is free
    let s = kt % S;
    if kt + S - 1 < tiles {
      load_centroids((kt + S - 1) % S, kt + S - 1);
    }
    cp.async.commit;

    var acc: frag<mma_c, f32, 16, 8, 16>[BN / 8] = 0.0;
    for kk in 0..HD / 16 unroll {
      var bf: frag<mma_b, T, 16, 8, 16>[BN / 8];
      for j in 0..BN / 8 step 2 unroll {
        ldmatrix bf[j], bf[j + 1] <- cs[s][j * 8 + (lane / 16) * 8 + lane % 8, kk * 16 + ((lane / 8) % 2) * 8 +: 8];
      }
      for j in 0..BN / 8 unroll {
        mma.sync acc[j] += xa[kk] * bf[j];
      }
    }

    // element 2 r + h of acc[j]: row g + 8 r, column 8 j + 2 q + h; columns 8 j + h < lim are below K
    let lim = K - kt * BN - (i32(lane) % 4) * 2;
    var nv: f32[BN / 4];
    for j in 0..BN / 8 unroll {
      let nrm = cns[s][8 * j + (i32(lane) % 4) * 2 +: 2];
      nv[2 * j] = select(8 * j < lim, nrm[0], inf);
      nv[2 * j + 1] = select(8 * j + 1 < lim, nrm[1], inf);
    }
    for r in 0..2 unroll {
      var tv: f32[BN / 8];
      var ti: i32[BN / 8];
      for j in 0..BN / 8 unroll {
        let left = fma(-2.0, acc[j][2 * r], nv[2 * j]);
        let right = fma(-2.0, acc[j][2 * r + 1], nv[2 * j + 1]);
        let take = right < left;
        tv[j] = select(take, right, left);
        ti[j] = select(take, 8 * j + 1, 8 * j);
      }
      for l in 1..5 unroll {
        for j in 0..(BN / 8) >> l unroll {
          let take = tv[2 * j + 1] < tv[2 * j];
          tv[j] = select(take, tv[2 * j + 1], tv[2 * j]);
          ti[j] = select(take, ti[2 * j + 1], ti[2 * j]);
        }
      }
      let better = tv[0] < bv[r];
      bv[r] = select(better, tv[0], bv[r]);
      bi[r] = select(better, kt * BN + (i32(lane) % 4) * 2 + ti[0], bi[r]);
    }
  }
  cp.async.wait 0;

  for r in 0..2 unroll {
    for d in 0..2 unroll {
      let ov = shfl.xor(bv[r], 1 << d);
      let oi = shfl.xor(bi[r], 1 << d);
      let take = ov < bv[r] || (ov == bv[r] && oi < bi[r]);
      bv[r] = select(take, ov, bv[r]);
      bi[r] = select(take, oi, bi[r]);
    }
  }
  let row = m0 + warp * 16 + i32(lane) / 4;
  if lane % 4 == 0 {
    for r in 0..2 unroll {
      if row + 8 * r < N {
        L[b, row + 8 * r] = bi[r];
        MinD[b, row + 8 * r] = bv[r];
      }
    }
  }
}
