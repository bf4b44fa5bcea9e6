// RUN: %cakec --verify-only --verify-diagnostics %s
// min(x, b) <= b and max(x, b) >= b whatever x is: an index read from memory and clamped into [0, M - 1] gathers
// safely; a clamp with one side missing or off by one is reported with the clamped value in the counterexample.
target sm_90;

kernel gather(idx: i32[N], X: f32[M], Y: f32[N]) grid(cdiv(N, 128)) threads(128) {
  let i = i32(block.x) * 128 + i32(tid.x);
  if i < N {
    Y[i] = X[min(max(idx[i], 0), M - 1)];
  }
}

kernel gather_swapped(idx: i32[N], X: f32[M], Y: f32[N]) grid(cdiv(N, 128)) threads(128) {
  let i = i32(block.x) * 128 + i32(tid.x);
  if i < N {
    Y[i] = X[max(0, min(M - 1, idx[i]))];
  }
}

kernel gather_past(idx: i32[N], X: f32[M], Y: f32[N]) grid(cdiv(N, 128)) threads(128) {
  let i = i32(block.x) * 128 + i32(tid.x);
  if i < N {
    Y[i] = X[min(max(idx[i], 0), M)];
  }
}

kernel gather_no_floor(idx: i32[N], X: f32[M], Y: f32[N]) grid(cdiv(N, 128)) threads(128) {
  let i = i32(block.x) * 128 + i32(tid.x);
  if i < N {
    Y[i] = X[min(idx[i], M - 1)];
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@23 E0652 {{load 'X[min(max(idx[i], 0), M)]' may be out of bounds}}
// expected-note@23 {{clamped = }}
// expected-error@30 E0652 {{load 'X[min(idx[i], M - 1)]' may be out of bounds}}
// expected-note@30 {{clamped = -}}
