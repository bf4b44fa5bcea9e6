// RUN: %cakec --verify-only --verify-diagnostics %s
// A tile loop: one thread loads the next tile with TMA while the other threads may still read the current
// one.  The mbarrier orders the TMA write before the reads (not a race); nothing orders the reads of tile
// kt before the TMA load of tile kt + 1 into the same buffer: a `syncthreads;` before the load is missing.
target sm_90;
kernel k<T = 64>(In: f32[N, T] tma(box=[1, T]) align(16), Out: f32[N, T] align(16))
  requires(N >= 1) grid(1) threads(T)
{
  shared tile: f32[1, T] align(128);
  mbarrier loaded arrivals(1);
  if tid.x == 0 {
    mbarrier.init loaded;
    fence.mbarrier_init;
  }
  syncthreads;
  let t = i32(tid.x);
  for kt in 0..N {
    if tid.x == 0 {
      arrive loaded expect_tx(T * 4);
      tma.load tile <- In[kt, 0] signal(loaded);
    }
    wait loaded parity(kt & 1);
    Out[kt, t] = tile[0, (t + 1) % T];
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@20 E0658 {{'tma.load' overwrites shared 'tile' through the async proxy, unordered with the read 'tile[0, (t + 1) % T]' by another thread}}
// expected-note@23 {{the read by thread 1 (warp 0, lane 1), kt = 0}}
// expected-note@20 {{counterexample: thread 0 (warp 0, lane 0), kt = 1 issues the tma.load writing tile[0, 0 +: 64] while thread 1 (warp 0, lane 1), kt = 0 reads tile[0, 2]; no barrier both threads pass orders them (N = 2)}}
// expected-note@23 {{no barrier (syncthreads) that both threads pass lies between this read and the tma.load}}
