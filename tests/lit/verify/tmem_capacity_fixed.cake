// RUN: %cakec --verify-only --verify-diagnostics %s
// Fixed twin of tmem_capacity.cake: 128 KB of shared memory leave room for one CTA per SM, whose 512
// columns fit the tensor memory.
target sm_100a;
kernel k(X: f32[N] align(16)) grid(cdiv(N, 128)) threads(128) {
  shared stage: f32[32768];
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
