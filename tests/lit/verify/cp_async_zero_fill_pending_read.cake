// RUN: %cakec --verify-only --verify-diagnostics %s
// A zero-filling copy (valid(c)) is part of its cp.async group like a plain one: reading its destination
// before the group is waited for is a pending read (E0647), and a wait makes it clean.
target sm_80;
kernel k(A: bf16[M, K] align(16), C: bf16[M, K] align(16)) requires(K % 8 == 0) grid(1) threads(64) {
  shared sa: bf16[8, 64] align(128);
  shared sb: bf16[8, 64] align(128);
  let r = i32(tid.x) / 8;
  let c = (i32(tid.x) % 8) * 8;
  cp.async sa[r, c +: 8] <- A[r, c +: 8] valid(r < M && c < K);   // expected-note {{this cp.async writes the array}}
  cp.async.commit;                                                  // expected-note {{its group is committed here}}
  syncthreads;
  if r < M && c < K {
    // expected-error@+2 E0647 {{read of 'sa' may see data that cp.async group 'cp.async.commit' (outside loops) is still writing}}
    // expected-note@+1 {{with M = }}
    C[r, c +: 8] = sa[r, c +: 8];
  }
  cp.async sb[r, c +: 8] <- A[r, c +: 8] valid(r < M && c < K);
  cp.async.commit;
  cp.async.wait 0;
  syncthreads;
  if r < M && c < K {
    C[r, c +: 8] = sb[r, c +: 8];
  }
}
