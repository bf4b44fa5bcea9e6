// RUN: %cakec --verify-only --verify-diagnostics %s
// Zero-filling copies of a ragged tile: `cp.async D <- S valid(c)` reads S only where c holds, so the source
// is in bounds exactly when c implies it.  The exact masks verify; a mask that admits the row M (<=), one that
// tests the start of the 8-element vector against K without K % 8 == 0 behind it, and a missing mask are
// refuted with a counterexample.
target sm_80;
kernel k<BM = 32>(A: bf16[M, K] align(16), B: bf16[M, L] align(16)) requires(K % 8 == 0, L >= 1)
  grid(cdiv(M, BM)) threads(256) {
  shared sa: bf16[BM, 64] align(128);
  let t = i32(tid.x);
  let m0 = i32(block.x) * BM;
  let r = t / 8;
  let c = (t % 8) * 8;
  cp.async sa[r, c +: 8] <- A[m0 + r, c +: 8] valid(m0 + r < M && c < K);             // exact: proven
  // expected-error@+2 E0652 {{access 'A[m0 + r, c +: 8]' may be out of bounds: index 'm0 + r' of dimension 0 can reach}}
  // expected-note@+1 {{counterexample: }}
  cp.async sa[r, c +: 8] <- A[m0 + r, c +: 8] valid(m0 + r <= M && c < K);
  // B's row pitch 2L bytes is no multiple of 16 without L % 8 == 0, so the 16-byte copies can be misaligned too:
  // expected-error@+4 E0671 {{access 'B[m0 + r, c +: 8]' may be misaligned: its byte offset from the base can be}}
  // expected-note@+3 {{counterexample: }}
  // expected-error@+2 E0652 {{access 'B[m0 + r, c +: 8]' may be out of bounds: index 'c' +: 8 of dimension 1 can reach}}
  // expected-note@+1 {{counterexample: }}
  cp.async sa[r, c +: 8] <- B[m0 + r, c +: 8] valid(m0 + r < M && c < L);
  // expected-error@+4 E0652 {{access 'A[m0 + r, c +: 8]' may be out of bounds: index 'm0 + r' of dimension 0 can reach}}
  // expected-note@+3 {{counterexample: }}
  // expected-error@+2 E0652 {{access 'A[m0 + r, c +: 8]' may be out of bounds: index 'c' +: 8 of dimension 1 can reach}}
  // expected-note@+1 {{counterexample: }}
  cp.async sa[r, c +: 8] <- A[m0 + r, c +: 8];
  cp.async.commit;
  cp.async.wait 0;
}
