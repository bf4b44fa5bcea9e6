// block_reduce_sum: one pass of a two-pass sum of an f32 vector X[N].
//
// Two-pass scheme (host side)
//   pass 1  launch with X = input (N elements), Partial = scratch of G = cdiv(N, CHUNK) floats, where
//           CHUNK = THREADS * ITEMS * 4 (4096 with the defaults).  Block b writes the sum of
//           X[b*CHUNK .. (b+1)*CHUNK) to Partial[b].
//   pass 2  launch the same kernel with X = Partial (N = G) and Partial = a 1-float output.  For
//           G <= CHUNK (N <= 16.7M with the defaults) this is a single block; repeat while G > 1.
//   No atomics, so the result is deterministic (fixed reduction tree for a given N and CHUNK).
//
// Schedule (one block)
//   grid    G blocks of THREADS threads (THREADS / 32 warps).
//   load    ITEMS iterations; in iteration it thread t reads the 16-byte vector
//           X[base + (it * THREADS + t) * 4 +: 4] (f32x4), so each warp-wide load covers 512 contiguous
//           bytes (coalesced) and ITEMS independent loads are in flight per thread (unrolled).  A vector that
//           straddles N is read element by element (masked tail).
//   reduce  1. per thread: sum of its 4 * ITEMS values in registers;
//           2. per warp: warp.sum (5-step shfl.xor butterfly, result in every lane);
//           3. lane 0 of each warp writes its warp's sum to shared warp_sums[warp]; syncthreads;
//           4. warp 0 loads the THREADS / 32 warp sums (one per lane, zero-padded) and reduces them with an
//              explicit shfl.xor butterfly; lane 0 writes Partial[block.x].
//   shared  THREADS / 32 floats; one block-wide barrier.
target sm_80;

kernel block_reduce_sum<THREADS = 256, ITEMS = 4>(X: f32[N] align(16), Partial: f32[G])
  requires(N >= 1, G == cdiv(N, THREADS * ITEMS * 4), THREADS <= 1024)
  grid(cdiv(N, THREADS * ITEMS * 4)) threads(THREADS)
{
  shared warp_sums: f32[THREADS / 32];

  let t = i32(tid.x);
  let base = i32(block.x) * (THREADS * ITEMS * 4);

  // 1. thread-local partial sum
  var acc: f32 = 0.0;
  for it in 0..ITEMS unroll {
    let i = base + (it * THREADS + t) * 4;
    if i <= N - 4 {
      let v = X[i +: 4];                       // f32x4, 16-byte vector load
      acc += (v[0] + v[1]) + (v[2] + v[3]);
    } else {
      for j in i..N {                          // masked tail (fewer than 4 elements, or none)
        acc += X[j];
      }
    }
  }

  // 2. warp-level reduction: every lane gets the warp's sum
  acc = warp.sum(acc);

  // 3. one value per warp through shared memory
  if lane == 0 {
    warp_sums[warp] = acc;
  }
  syncthreads;

  // 4. first warp reduces the warp sums (THREADS / 32 <= 32 values)
  if warp == 0 {
    var s: f32 = 0.0;
    if lane < THREADS / 32 {
      s = warp_sums[lane];
    }
    for k in 0..5 unroll {                     // butterfly over lane distances 16, 8, 4, 2, 1
      s += shfl.xor(s, 16 >> k);
    }
    if lane == 0 {
      Partial[i32(block.x)] = s;
    }
  }
}
