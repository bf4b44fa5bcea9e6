// RUN: %cakec --verify-only --verify-diagnostics %s
// E0680: 512 columns per CTA, and 64 KB of shared memory let 3 CTAs share an SM: the second and third would
// stall in tcgen05.alloc.  The fixed twin (tmem_capacity_fixed.cake) uses enough shared memory for one CTA.
target sm_100a;
kernel k(X: f32[N] align(16)) grid(cdiv(N, 128)) threads(128) {
  shared stage: f32[16384];
  tmem acc: f32[2][128, 256];
  stage[i32(tid.x)] = 1.0;
  if warp == 0 {
    tcgen05.alloc acc;
  }
  tcgen05.fence.before;
  syncthreads;
  tcgen05.fence.after;
  if warp == 0 {
    tcgen05.dealloc acc;
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@5 E0680 {{kernel 'k' needs 3 co-resident CTAs (by shared memory and threads) x 512 columns = 1536, more than the 512 an SM has}}
