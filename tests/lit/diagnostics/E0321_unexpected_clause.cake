// E0321: clauses given to operations that do not take them.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: bf16[M, N] tma(box=[64, 64], swizzle=128B)) grid(M / BM) threads(128) {
  mbarrier full arrivals(1);
  barrier epi id(1) threads(128);
  syncthreads parity(0);           // expected-error E0321 {{'syncthreads' does not take the clause 'parity'}}
  arrive full signal(full);        // expected-error E0321 {{'arrive' does not take the clause 'signal'}}
  arrive epi expect_tx(128);       // expected-error E0321 {{'arrive' does not take the clause 'expect_tx'}}
}
