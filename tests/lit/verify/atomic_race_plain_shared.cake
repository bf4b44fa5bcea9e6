// RUN: %cakec --verify-only --verify-diagnostics %s
// A block-level counter: every thread bumps its bucket with atom.add (atomics never race each other), but the
// plain reset of the buckets by thread 0 of the next phase was left without a barrier after the updates.
target sm_80;

kernel buckets(X: i32[N], Y: i32[N]) requires(N >= 128) grid(1) threads(128) {
  shared b: i32[4];
  let t = i32(tid.x);
  if t < 4 {
    b[t] = 0;
  }
  syncthreads;
  let old = atom.add(b[t % 4], 1);
  Y[t] = old;
  if t == 0 {
    b[0] = 0;
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@16 E0663 {{write 'b[0]' races with the atomic update 'b[t % 4]': an atomic and a plain access touch shared 'b' in the same barrier interval}}
// expected-note@13 {{the other access: write by thread}}
// expected-note@16 {{counterexample: thread 0}}
// expected-note@16 {{no block barrier between the atomic and this plain access}}
