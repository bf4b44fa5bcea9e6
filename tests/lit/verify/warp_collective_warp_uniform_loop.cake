// RUN: %cakec --verify-only --verify-diagnostics %s
// A loop whose trip count is the same in every lane of a warp (a warp.max, a warp.any) but differs between
// warps may hold shuffles and votes: they synchronise one warp.  A barrier of several warps in such a loop
// is still an error (the warps reach it a different number of times), and so is a shuffle in a loop whose
// trip count differs between the lanes.
target sm_90a;
kernel k(X: i32[N], O: i32[N]) requires(N == 128) grid(1) threads(128) {
  let t = i32(tid.x);
  let x = X[t];
  var s: i32 = x;
  let rounds = warp.max(min(x, 8));
  for n in 0..rounds {
    s += shfl.xor(s, 1);
    if warp.any(s > 100) {
      s = s / 2;
    }
  }
  for n in 0..rounds {
    syncthreads;                      // expected-error E0642 {{syncthreads is under divergent control: the loop's trip count differs between threads}}
  }
  for n in 0..min(x, 8) {
    s += shfl.xor(s, 2);              // expected-error E0660 {{warp-collective 'shfl.xor' is not reached by every lane of the warp: the loop's trip count differs between the lanes of a warp}}
  }
  O[t] = s;
}
// expected-note@8 {{the loop's bound 'tid.x' differs between threads}}
// expected-note@21 {{divergent construct here}}
