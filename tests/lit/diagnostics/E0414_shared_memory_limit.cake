// E0414: more shared memory than the target gives a block.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 128, S = 8>(A: bf16[M, N]) grid(M / BM) threads(128) {   // expected-error E0414 {{kernel 'k' needs 262208 bytes of shared memory; sm_90a allows at most 232448}}
  shared a: bf16[S][BM, 128];    // expected-note {{shared array 'a' takes 262144 bytes}}
  mbarrier full[S] arrivals(1);
}
