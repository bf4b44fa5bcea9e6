// E0311: the condition of a zero-filling copy, `cp.async D <- S valid(c)`, must be a pred (an integer is not
// compared with zero).  Misplaced or repeated valid(...) clauses are E0321 / E0411, and valid takes one
// condition (E0325).
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k(A: bf16[M, K] align(16)) requires(K % 8 == 0) grid(1) threads(64) {
  shared sa: bf16[8, 64] align(128);
  var fa: frag<mma_a, bf16, 16, 8, 16>;
  let r = i32(tid.x) / 8;
  let c = (i32(tid.x) % 8) * 8;
  cp.async sa[r, c +: 8] <- A[r, c +: 8] valid(r < M && c < K);                      // fine
  cp.async sa[r, c +: 8] <- A[r, c +: 8] valid(M - r);     // expected-error E0311 {{the condition of 'valid(...)' must be of type pred, found i32}}
  cp.async sa[r, c +: 8] <- A[r, c +: 8] valid(1.0);       // expected-error E0311 {{the condition of 'valid(...)' must be of type pred, found float constant}}
  cp.async sa[r, c +: 8] <- A[r, c +: 8] valid(r < M) valid(c < K);   // expected-error E0411 {{'valid'}}
  // expected-note@-1 {{previous 'valid' is here}}
  cp.async sa[r, c +: 8] <- A[r, c +: 8] valid(r < M, c < K);         // expected-error E0325 {{'valid' expects 1 operand(s), 2 given}}
  ldmatrix fa <- sa[lane % 8, (lane / 8) * 8 +: 8] valid(r < M);      // expected-error E0321 {{'ldmatrix' does not take the clause 'valid'}}
  cp.async.commit;
  cp.async.wait 0;
}
