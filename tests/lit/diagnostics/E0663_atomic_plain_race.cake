// E0663: an atomic update and a plain access of one shared element by two threads in one barrier interval.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k(Y: u32[N]) requires(N >= 64) grid(1) threads(64) {
  shared s: u32[64];
  let t = i32(tid.x);
  s[t] = 0;
  syncthreads;
  red.add s[t % 8], 1;
  Y[t] = s[t];
}
// expected-error@10 E0663 {{read 's[t]' races with the atomic update 's[t % 8]': an atomic and a plain access touch shared 's' in the same barrier interval}}
// expected-note@9 {{the other access}}
// expected-note@10 {{counterexample}}
// expected-note@10 {{no block barrier between the atomic and this plain access}}
