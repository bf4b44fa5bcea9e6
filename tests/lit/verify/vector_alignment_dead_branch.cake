// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: %cakec --verify-only -D VW=2 %s 2>&1 | %FileCheck %s --check-prefix=PAIRS
// PAIRS: verified
// A vector load needs more alignment than a tensor declared align(2 * VW) has at VW = 1, but it sits under
// `if VW == 2`, which a VW = 1 build never takes: the verifier proves the path condition contradictory and
// skips the base check.  The same load in a branch the build does take (`if VW == 1`) is an error, and at VW = 2
// both kernels' pair loads are aligned.
target sm_90a;

kernel copy_pairs<VW = 1>(A: bf16[M, K] align(2 * VW), C: bf16[M, K])
  requires(VW == 1 || VW == 2 && K % 2 == 0)
  grid(cdiv(M, 128)) threads(128)
{
  let r = min(i32(block.x) * 128 + i32(tid.x), M - 1);
  for c in 0..K / 2 {
    var x: bf16[2];
    if VW == 2 {
      let pair = A[r, 2 * c +: 2];
      x[0] = pair[0];
      x[1] = pair[1];
    } else {
      x[0] = A[r, 2 * c];
      x[1] = A[r, 2 * c + 1];
    }
    C[r, 2 * c] = x[0];
    C[r, 2 * c + 1] = x[1];
  }
}

kernel copy_pairs_taken<VW = 1>(A: bf16[M, K] align(2 * VW), C: bf16[M, K])
  requires(VW == 1 || VW == 2 && K % 2 == 0)
  grid(cdiv(M, 128)) threads(128)
{
  let r = min(i32(block.x) * 128 + i32(tid.x), M - 1);
  for c in 0..K / 2 {
    if VW == 1 || VW == 2 {
      // expected-error@+2 E0671 {{load 'A[r, 2 * c +: 2]' may be misaligned: 'A' is declared align(2), below the 4 bytes a 4-byte vector access needs}}
      // expected-note@30 {{'A' is declared here}}
      let pair = A[r, 2 * c +: 2];
      C[r, 2 * c] = pair[0];
      C[r, 2 * c + 1] = pair[1];
    }
  }
}
