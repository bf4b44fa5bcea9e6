// kmeans_assign_naive: the k-means assignment step written the simplest way, on the CUDA cores: the
// deliberately weak starting point of the harness's search for k-means (docs/harness.md, "Search"), the first
// member of the family kernels/kmeans/family_assign_bf16.json.  Same contract as kmeans_assign in
// assign_sm90.cake (docs/kernels.md):
//   L[b, i] = argmin_c ||X[b, i] - C[b, c]||^2 (ties: the smallest c),
//   MinD[b, i] = CN[b, L[b, i]] - 2 X[b, i] . C[b, L[b, i]]   (add ||x||^2 for the squared distance),
// X[B, N, D] and C[B, K, D] of element type T (bf16 by default), CN[B, KP] f32 the centroid norms (padded to
// KP >= K; only the first K are read), L[B, N] i32, MinD[B, N] f32.  D == HD.
//
// Schedule: one thread per point.  grid (cdiv(N, TPB), B) blocks of TPB threads; thread t of block (x, b)
// takes point i = x * TPB + t of batch b and walks every centroid: a dot product of HD elements read straight
// from global memory (the threads of a warp read 32 different rows of X: uncoalesced; every thread of the
// block reads the same centroid row: a broadcast, served by L1/L2), the distance CN - 2 dot, and a running
// minimum (strictly smaller: the first centroid keeps a tie).  No shared memory, no tensor cores, no reuse of
// X across centroids beyond the registers of the running sum.
target sm_90a;

kernel kmeans_assign_naive<T: type = bf16, HD = 128, TPB = 128>(
    X: T[B, N, D] align(16),
    C: T[B, K, D] align(16),
    CN: f32[B, KP] align(16),
    L: i32[B, N] align(16),
    MinD: f32[B, N] align(16))
  requires(D == HD, HD % 8 == 0, HD <= 256, KP >= K, TPB % 32 == 0, TPB <= 1024)
  grid(cdiv(N, TPB), B) threads(TPB)
{
  let b = i32(block.y);
  let i = i32(block.x) * TPB + i32(tid.x);
  if i < N {
    var best: f32 = inf;
    var bidx: i32 = 0;
    for c in 0..K {
      var dot: f32 = 0.0;
      for d in 0..HD {
        dot = dot + f32(X[b, i, d]) * f32(C[b, c, d]);
      }
      let dist = CN[b, c] - 2.0 * dot;
      if dist < best {
        best = dist;
        bidx = c;
      }
    }
    L[b, i] = bidx;
    MinD[b, i] = best;
  }
}
