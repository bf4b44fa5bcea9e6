// E0325: operations with the wrong number of operands.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: bf16[M, N]) grid(M / BM) threads(128) {
  mbarrier full arrivals(1);
  syncthreads full;                // expected-error E0325 {{'syncthreads' expects 0 operand(s), 1 given}}
  mbarrier.expect_tx full;         // expected-error E0325 {{'mbarrier.expect_tx' expects 2 operands (mbarrier, bytes) operand(s), 1 given}}
  cp.async.wait;                   // expected-error E0325 {{'cp.async.wait' expects 1 count operand(s), 0 given}}
  wait full parity(0, 1);          // expected-error E0325 {{'parity' expects 1 operand(s), 2 given}}
}
