// centroid_update: the k-means update step, new centroids = the mean of the points assigned to them (an
// empty cluster keeps its old centroid).  X[B, N, D] and Old / New [B, K, D] of element type T (bf16, the
// default, or f16); L[B, N] i32 labels in [0, K) (kmeans_assign's output).  D == HD, a multiple of 8.  A
// label outside [0, K) is taken modulo K, and so is every position and point index read back from memory,
// so bad data cannot address out of bounds.  Sums are f32; the order in which a cluster's points are added
// follows the atomics, so sums may differ in the last bits from run to run.
//
// Two ways to the sums, both into Sums f32[B, K, D] and Counts i32[B, K] that the caller has zeroed, and one
// finalize (New = Sums / Counts, or Old where the count is 0):
//
// Sorted (the fast one: bench/results/): a counting sort of the labels, then segmented sums.
//   label_histogram   Counts[b, k] = number of points of batch b with label k (a shared-memory histogram per
//                     block, one global reduction per non-zero bin);
//   label_offsets     Cursor[b, k] = the exclusive prefix sum of Counts[b, :] (where cluster k's points start
//                     in the sorted order);
//   label_scatter     every point i of batch b gets a position in its cluster's range (a block reserves the
//                     range of its points of cluster k with one atomic on Cursor[b, k], then hands positions
//                     out in shared memory): PS[b, pos] = (i, its label), one 8-byte store;
//   segment_sums      the sorted positions in pieces of R: each worker (HD / 8 lanes, 8 elements per lane)
//                     sums the rows X[b, PS[b, pos, 0], :] of its piece run by run (a run is one label) and adds
//                     each run's sum to Sums[b, label, :] with one reduction per element; a piece crosses
//                     few runs, so the reductions do not meet on hot clusters.
//
// Atomics (no sort):
//   centroid_accumulate          HD / 8 threads per point, each loading 8 consecutive elements (one 16-byte
//                                load) and adding them to the point's centroid with 8 red.global.add.f32; the
//                                first thread of the point adds its count.  The reductions of one centroid's
//                                points meet in L2.
//   centroid_accumulate_private  block-private sums of a D-slice in shared memory (see the kernel).
//
// centroid_finalize: cdiv(K, RPB) x B blocks of RPB * HD / 8 threads, 8 elements of one centroid per thread.
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
  requires(D == HD, HD % DS == 0, DS % 8 == 0, K > 0, K <= KMAX, TPB % (DS / 8) == 0, N <= 1073741824)
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

// The labels of this block's chunk of batch b, points lo .. lo + TPB * PPT - 1 (lo = block.x * TPB * PPT):
// thread t holds points lo + t + j * TPB, j < PPT, in ks[j] (loaded together, past N clamped to a valid
// row) and counts the ones below N into cnt (zeroed first).
fn count_chunk(var ks: i32[PPT], shared cnt: i32[BINS], lo: i32) {
  for e in i32(tid.x)..K step TPB {
    cnt[e] = 0;
  }
  syncthreads;
  for j in 0..PPT unroll {
    ks[j] = L[b, min(lo + i32(tid.x) + j * TPB, N - 1)];
  }
  for j in 0..PPT unroll {
    if lo + i32(tid.x) + j * TPB < N {
      red.add cnt[i32(u32(ks[j]) % u32(K))], 1;
    }
  }
  syncthreads;
}

// Counts[b, k] += the number of points with label k in this block's chunk (one reduction per non-zero bin).
kernel label_histogram<BINS = 4096, TPB = 512, PPT = 16>(
    L: i32[B, N],
    Counts: i32[B, K])
  requires(K > 0, K <= BINS, N > 0, N <= 1073741824)
  grid(cdiv(N, TPB * PPT), B) threads(TPB)
{
  shared cnt: i32[BINS];
  let b = i32(block.y);
  let lo = i32(block.x) * (TPB * PPT);
  var ks: i32[PPT];
  count_chunk(ks, cnt, lo);
  for e in i32(tid.x)..K step TPB {
    let n = cnt[e];
    if n != 0 {
      red.add Counts[b, e], n;
    }
  }
}

// One block per batch of TPB = 2^LOG threads: thread t sums the counts t * E .. (t + 1) * E - 1
// (E = cdiv(K, TPB)) sequentially, the per-thread totals are scanned across the block in shared memory
// (Hillis-Steele, LOG steps), and each thread writes the running prefix of its counts.
kernel label_offsets<LOG = 10>(
    Counts: i32[B, K],
    Cursor: i32[B, K])
  requires(K > 0, K <= 65536)
  grid(B) threads(1 << LOG)
{
  let TPB = 1 << LOG;
  shared part: i32[2, 1 << LOG];
  let t = i32(tid.x);
  let b = i32(block.x);
  let per = cdiv(K, TPB);
  let lo = t * per;
  var total: i32 = 0;
  for k in lo..min(K, lo + per) {
    total += Counts[b, k];
  }
  part[0, t] = total;
  syncthreads;
  for s in 0..LOG unroll {                 // inclusive scan of the totals, step s reads buffer s % 2
    var v: i32 = part[s % 2, t];
    if t >= 1 << s {
      v += part[s % 2, t - (1 << s)];
    }
    part[(s + 1) % 2, t] = v;
    syncthreads;
  }
  var run: i32 = part[LOG % 2, t] - total;       // exclusive prefix of this thread's first count
  for k in lo..min(K, lo + per) {
    let n = Counts[b, k];
    Cursor[b, k] = run;
    run += n;
  }
}

// The chunks of label_histogram.  The block's histogram of its chunk reserves, per non-zero bin,
// a range of the cluster's positions (atom.add on Cursor); its threads then take positions from that range
// one at a time with shared-memory atomics.
kernel label_scatter<BINS = 4096, TPB = 512, PPT = 16>(
    L: i32[B, N],
    Cursor: i32[B, K],
    PS: i32[B, N, 2] align(8))
  requires(K > 0, K <= BINS, N > 0, N <= 1073741824)
  grid(cdiv(N, TPB * PPT), B) threads(TPB)
{
  shared cnt: i32[BINS];
  let t = i32(tid.x);
  let b = i32(block.y);
  let lo = i32(block.x) * (TPB * PPT);
  var ks: i32[PPT];
  count_chunk(ks, cnt, lo);
  for e in t..K step TPB {
    let n = cnt[e];
    if n != 0 {
      cnt[e] = atom.add(Cursor[b, e], n);
    }
  }
  syncthreads;
  for j in 0..PPT unroll {
    if lo + t + j * TPB < N {
      let k = i32(u32(ks[j]) % u32(K));
      let pos = i32(u32(atom.add(cnt[k], 1)) % u32(N));
      var entry: i32x2;
      entry[0] = lo + t + j * TPB;
      entry[1] = k;
      PS[b, pos, 0 +: 2] = entry;
    }
  }
}

// The open run of a segment_sums worker: `acc` sums the rows of label `cur` (-1: none yet).  Uses the
// calling kernel's Sums, b (batch) and c (the worker's first column).
fn flush_run(acc: f32x8, cur: i32) {
  if cur >= 0 {
    let k = i32(u32(cur) % u32(K));
    for e in 0..8 unroll {
      red.add Sums[b, k, c + e], acc[e];
    }
  }
}

// A row of label k: a new run when k differs from the open run's label (the open run is added first).
fn start_run(var acc: f32x8, var cur: i32, k: i32) {
  if k != cur {
    flush_run(acc, cur);
    acc = 0.0;
    cur = k;
  }
}

// Worker w (HD / 8 consecutive threads) sums the sorted positions w * R .. w * R + R - 1 in groups of RG:
// a group of one label (the usual case: the labels are sorted) is summed without a branch; a group that
// starts a new run flushes the open one first; a group with several labels or past N goes row by row.
kernel segment_sums<T: type = bf16, HD = 128, R = 128, RG = 8, TPB = 256>(
    X: T[B, N, D] align(16),
    PS: i32[B, N, 2] align(8),
    Sums: f32[B, K, D])
  requires(D == HD, HD % 8 == 0, HD <= 256, 32 % (HD / 8) == 0, R % RG == 0, RG <= HD / 8, K > 0, N > 0,
           N <= 1073741824)
  grid(cdiv(N, R * (TPB / (HD / 8))), B) threads(TPB)
{
  let t = i32(tid.x);
  let b = i32(block.y);
  let c = (t % (HD / 8)) * 8;
  let first = (i32(block.x) * (TPB / (HD / 8)) + t / (HD / 8)) * R;
  var acc: f32x8 = 0.0;
  var cur: i32 = -1;
  for q in 0..R / RG {
    let base = first + q * RG;
    let mine = min(base + i32(lane) % (HD / 8), N - 1);      // lane r of the worker reads row r's entries
    let entry = PS[b, mine, 0 +: 2];
    let p_mine = entry[0];
    let k_mine = entry[1];
    var ps: i32[RG];
    var ks: i32[RG];
    for r in 0..RG unroll {
      ps[r] = shfl.idx(p_mine, i32(lane) - i32(lane) % (HD / 8) + r);
      ks[r] = shfl.idx(k_mine, i32(lane) - i32(lane) % (HD / 8) + r);
    }
    if base + RG <= N && ks[0] == ks[RG - 1] {
      start_run(acc, cur, ks[0]);
      for r in 0..RG unroll {
        acc += f32x8(X[b, i32(u32(ps[r]) % u32(N)), c +: 8]);
      }
    } else {
      for r in 0..RG unroll {
        if base + r < N {
          start_run(acc, cur, ks[r]);
          acc += f32x8(X[b, i32(u32(ps[r]) % u32(N)), c +: 8]);
        }
      }
    }
  }
  flush_run(acc, cur);
}
