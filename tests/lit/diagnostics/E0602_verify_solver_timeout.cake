// E0602: the solver's per-query limit (--verify-timeout=1: one millisecond's worth of Z3 resource units) is
// exhausted by a non-linear trip count; the obligations are reported as unproven, never passed.
// RUN: %cakec --verify-only --verify-timeout=1 --verify-diagnostics %s
target sm_80;

kernel k<S = 2>(A: f32[M, K]) requires(K % 4 == 0) grid(M) threads(32) {
  mbarrier bar[S] arrivals(1);
  if lane == 0 {
    mbarrier.init bar;
  }
  syncthreads;
  let n = (K / 4) * (K / 4) % 7 + (K * M) % 5;
  elect {
    for k in 0..n {
      arrive bar[k % S];
      wait bar[k % S] parity((k / S) & 1);
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@6 E0602 {{the solver timed out after 1 ms proving the synchronisation protocol for trip count 0}}
// The trip count's products can leave i32 (K * M); within its share of the 1 ms limit the wrap-around proof
// is undecided, which is a warning (E0672), not a pass:
// expected-warning@12 E0672 {{could not prove that the loop bound 'n' cannot wrap around: the solver ran out of its share of the limit}}
