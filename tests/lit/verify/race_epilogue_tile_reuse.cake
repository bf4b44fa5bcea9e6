// RUN: %cakec --verify-only --verify-diagnostics %s
// The C tile staged through shared memory: every warp stores its accumulator fragment, then every thread
// copies whole rows out - without the barrier between the two, a row can be read before its warp stored it.
target sm_80;

kernel epi(C: bf16[M, N] align(16))
  requires(M % 64 == 0, N % 64 == 0)
  grid(N / 64, M / 64) threads(128)
{
  shared ct: bf16[64, 64] align(128);
  let t = i32(tid.x);
  var acc: frag<mma_c, f32, 16, 8, 16> = 0.0;
  for j in 0..8 unroll {
    store ct[warp * 16, j * 8] <- bf16(acc);
  }
  for v in 0..4 unroll {
    let idx = v * 128 + t;
    C[i32(block.y) * 64 + idx / 8, i32(block.x) * 64 + (idx % 8) * 8 +: 8] = ct[idx / 8, (idx % 8) * 8 +: 8];
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@18 E0655 {{read 'ct[idx / 8, (idx % 8) * 8 +: 8]' races with the fragment store 'ct[warp * 16, j * 8]': two threads access shared 'ct' in the same barrier interval}}
// expected-note@14 {{the other access: write by thread 0 (warp 0, lane 0), j = 1}}
// expected-note@18 {{counterexample: thread 1 (warp 0, lane 1), v = 0 reads ct[0, 8 +: 8] while thread 0 (warp 0, lane 0), j = 1 writes ct[0 +: 16, 8 +: 8], in the same barrier interval (M = 64, N = 64)}}
// expected-note@14 {{no block barrier between this access and the racing one}}
