// RUN: %cakec --verify-only --verify-diagnostics %s
// 'x % n' with x read from memory and n a shape variable lies in [0, n) when n > 0: a label taken modulo K
// indexes K rows safely; modulo K + 1 (K < 2^31 - 1, so that K + 1 stays in i32) it can reach row K.
target sm_80;

kernel scatter(L: i32[N], S: f32[K]) requires(N > 0, K > 0) grid(cdiv(N, 128)) threads(128) {
  let i = i32(block.x) * 128 + i32(tid.x);
  if i < N {
    red.add S[i32(u32(L[i]) % u32(K))], 1.0;
  }
}

kernel scatter_past(L: i32[N], S: f32[K]) requires(N > 0, K > 0, K < 2147483647) grid(cdiv(N, 128)) threads(128) {
  let i = i32(block.x) * 128 + i32(tid.x);
  if i < N {
    red.add S[i32(u32(L[i]) % u32(K + 1))], 1.0;
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@16 E0652 {{atomic 'S[i32(u32(L[i]) % u32(K + 1))]' may be out of bounds}}
// expected-note@16 {{counterexample}}
