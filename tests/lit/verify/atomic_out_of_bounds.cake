// RUN: %cakec --verify-only --verify-diagnostics %s
// Atomic targets are bounds-checked like loads and stores: the bucket index runs one past the histogram.
target sm_80;

kernel hist(X: u32[N], H: u32[B]) requires(N > 0, B == 16) grid(cdiv(N, 128)) threads(128) {
  let i = i32(block.x) * 128 + i32(tid.x);
  if i < N {
    red.add H[i32(X[i] % 17)], 1;
    let o = atom.max(H[i % 16 + 1], u32(7));
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@8 E0652 {{atomic 'H[i32(X[i] % 17)]' may be out of bounds}}
// expected-note@8 {{counterexample}}
// expected-error@9 E0652 {{atomic 'H[i % 16 + 1]' may be out of bounds: index 'i % 16 + 1' of dimension 0 can reach 16, past 'B' = 16}}
// expected-note@9 {{counterexample}}
