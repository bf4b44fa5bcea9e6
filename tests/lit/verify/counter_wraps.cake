// RUN: %cakec --verify-only --verify-diagnostics %s
// An induction counter (a `var` advanced by a constant once per iteration of a loop with synchronisation: the
// ring counters of pipelined kernels, whose `it % S` and `(it / S) & 1` pick the stage and the parity) reaches
// its initial value plus its step times the iterations of every loop between its declaration and its update.
// The sync analysis counts it as a mathematical integer, so an i32 counter that can pass 2^31 - 1 would wrap to
// other stages and parities than those verified: E0670 at its update.  'bounded' (requires(...) on the product
// of the trip counts) and 'wide' (an i64 counter: R x C < 2^62) verify; 'down' counts down with no bound.
// 'window' verifies: its outer loop runs twice, from R - 2 >= 0; the bound counted from 0 (R x C iterations,
// asked first) is refuted, and the exact count (2 x C) is proven.
target sm_80;

kernel unbounded(X: f32[R, C], Y: f32[32]) grid(1) threads(32) {
  var it: i32 = 0;
  for r in 0..R {
    for c in 0..C {
      Y[i32(tid.x)] = X[r, c];
      syncthreads;
      it += 3;
    }
  }
}

kernel bounded(X: f32[R, C], Y: f32[32]) requires(R * C <= 715827882) grid(1) threads(32) {
  var it: i32 = 0;
  for r in 0..R {
    for c in 0..C {
      Y[i32(tid.x)] = X[r, c];
      syncthreads;
      it += 3;
    }
  }
}

kernel wide(X: f32[R, C], Y: f32[32]) grid(1) threads(32) {
  var it: i64 = 0;
  for r in 0..R {
    for c in 0..C {
      Y[i32(tid.x)] = X[r, c];
      syncthreads;
      it += 1;
    }
  }
}

kernel down(X: f32[R], Y: f32[32]) grid(1) threads(32) {
  var it: i32 = 5;
  for r in 0..R {
    for h in 0..2 {
      Y[i32(tid.x)] = X[r];
      syncthreads;
      it -= 1;
    }
  }
}
kernel window(X: f32[R, C], Y: f32[32]) requires(R >= 2, C <= 1000000) grid(1) threads(32) {
  var it: i32 = 0;
  for r in R - 2..R {
    for c in 0..C {
      Y[i32(tid.x)] = X[r, c];
      syncthreads;
      it += 1;
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@18 E0670 {{'it = 3 x (iterations of 'r' x 'c')' can wrap around: as i32 it can reach 2147483649, past 2147483647 (the GPU computes it modulo 2^32)}}
// expected-note@18 {{counterexample: tid.x = 18, warp = 0, lane = 18, R = 1, r = 0, C = 715827883, c = 0}}
// expected-error@51 E0670 {{'it = 5 - 1 x (iterations of 'r' x 'h')' can wrap around: as i32 it can reach -2147483649, below -2147483648 (the GPU computes it modulo 2^32)}}
// expected-note@51 {{counterexample: tid.x = 0, warp = 0, lane = 0, R = 1073741827, r = 0, h = 0}}
