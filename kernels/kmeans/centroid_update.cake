// centroid_update: the k-means update step, new centroids = the mean of the points assigned to them.
//   centroid_accumulate: Sums[b, k, :] += X[b, i, :] and Counts[b, k] += 1 for every point i with
//                        L[b, i] = k (f32 / i32 atomics into buffers the caller has zeroed);
//   centroid_finalize:   New[b, k, :] = Sums[b, k, :] / Counts[b, k], or Old[b, k, :] when the cluster is
//                        empty (an empty cluster keeps its centroid).
// X[B, N, D] and Old / New [B, K, D] of element type T (bf16, the default, or f16); L[B, N] i32 labels in [0, K) (kmeans_assign's output; a label
// outside it is taken modulo K, so a bad label cannot write out of bounds).  D == HD, a multiple of 8.
//
// Schedule
//   accumulate  cdiv(N, RPB) x B blocks of RPB * HD / 8 threads: HD / 8 threads per point, each loading
//               8 consecutive elements (one 16-byte load) and adding them to the point's centroid with
//               8 red.global.add.f32; the first thread of the point adds its count.  No sort: the
//               reductions of one centroid's points meet in L2.
//   finalize    cdiv(K, RPB) x B blocks of the same shape, 8 elements of one centroid per thread.
target sm_90a;

kernel centroid_accumulate<T: type = bf16, HD = 128, RPB = 16>(
    X: T[B, N, D] align(16),
    L: i32[B, N],
    Sums: f32[B, K, D],
    Counts: i32[B, K])
  requires(D == HD, HD % 8 == 0, HD <= 256, K > 0, RPB * HD / 8 <= 1024)
  grid(cdiv(N, RPB), B) threads(RPB * HD / 8)
{
  let r = i32(tid.x) / (HD / 8);
  let c = (i32(tid.x) % (HD / 8)) * 8;
  let b = i32(block.y);
  let i = i32(block.x) * RPB + r;
  if i < N {
    let k = i32(u32(L[b, i]) % u32(K));
    let v = f32x8(X[b, i, c +: 8]);
    for e in 0..8 unroll {
      red.add Sums[b, k, c + e], v[e];
    }
    if c == 0 {
      red.add Counts[b, k], 1;
    }
  }
}

// Block-private sums: about two blocks per SM; block (g, j, b) adds the D-slice j * DS +: DS of every
// grid_dim.x-th group of rows into a shared [KMAX, DS] f32 array with shared-memory atomics, then adds its non-zero partial sums
// to Sums with one global reduction each; the counts come from the blocks of slice 0.  The hot centroids of
// clustered data then contend in shared memory, not in L2.  K <= KMAX (KMAX * DS * 4 bytes of shared).
kernel centroid_accumulate_private<T: type = bf16, HD = 128, DS = 32, KMAX = 1024, TPB = 512>(
    X: T[B, N, D] align(16),
    L: i32[B, N],
    Sums: f32[B, K, D],
    Counts: i32[B, K])
  // N bound: the grid-stride step (at most 2 * 1024 blocks of TPB / (DS / 8) rows) added to the last i stays in i32
  requires(D == HD, HD % DS == 0, DS % 8 == 0, K > 0, K <= KMAX, TPB % (DS / 8) == 0,
           N <= 2147483647 - 2048 * (TPB / (DS / 8)))
  grid(max(1, 2 * num_sms / (HD / DS * B)), HD / DS, B) threads(TPB)
{
  shared part: f32[KMAX, DS];
  shared cnt: i32[KMAX];
  let t = i32(tid.x);
  let j = i32(block.y);
  let b = i32(block.z);
  for e in t..KMAX * DS step TPB {
    part[e / DS, e % DS] = 0.0;
  }
  for e in t..KMAX step TPB {
    cnt[e] = 0;
  }
  syncthreads;
  let rows = TPB / (DS / 8);               // points per pass of the block
  let c = (t % (DS / 8)) * 8;
  for i in i32(block.x) * rows + t / (DS / 8)..N step i32(grid_dim.x) * rows {
    let k = i32(u32(L[b, i]) % u32(K));
    let v = f32x8(X[b, i, j * DS + c +: 8]);
    for e in 0..8 unroll {
      red.add part[k, c + e], v[e];
    }
    if j == 0 && c == 0 {
      red.add cnt[k], 1;
    }
  }
  syncthreads;
  for e in t..K * DS step TPB {
    let s = part[e / DS, e % DS];
    if s != 0.0 {
      red.add Sums[b, e / DS, j * DS + e % DS], s;
    }
  }
  if j == 0 {
    for e in t..K step TPB {
      let n = cnt[e];
      if n != 0 {
        red.add Counts[b, e], n;
      }
    }
  }
}

kernel centroid_finalize<T: type = bf16, HD = 128, RPB = 16>(
    Sums: f32[B, K, D] align(16),
    Counts: i32[B, K],
    Old: T[B, K, D] align(16),
    New: T[B, K, D] align(16))
  requires(D == HD, HD % 8 == 0, HD <= 256, RPB * HD / 8 <= 1024)
  grid(cdiv(K, RPB), B) threads(RPB * HD / 8)
{
  let r = i32(tid.x) / (HD / 8);
  let c = (i32(tid.x) % (HD / 8)) * 8;
  let b = i32(block.y);
  let k = i32(block.x) * RPB + r;
  if k < K {
    let n = Counts[b, k];
    if n > 0 {
      let s0 = Sums[b, k, c +: 4];
      let s1 = Sums[b, k, c + 4 +: 4];
      let inv = 1.0 / f32(n);
      for e in 0..4 unroll {
        New[b, k, c + e] = T(s0[e] * inv);
        New[b, k, c + 4 + e] = T(s1[e] * inv);
      }
    } else {
      New[b, k, c +: 8] = Old[b, k, c +: 8];
    }
  }
}
