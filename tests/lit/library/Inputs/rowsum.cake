// Row sums for the library tests: Y[m] = sum over n of X[m, n], once in one kernel (one thread per row) and
// once split over columns into a workspace: rowsum_partial writes P partial sums per row to W[P, M],
// rowsum_finish adds them.  A library variant launches the pair in order, with W allocated for the call.
target sm_80;

kernel rowsum<BS = 128>(X: f32[M, N], Y: f32[M])
  grid(cdiv(M, BS)) threads(BS)
{
  let r = i32(block.x) * BS + i32(tid.x);
  if r < M {
    var s: f32 = 0.0;
    for j in 0..N {
      s = s + X[r, j];
    }
    Y[r] = s;
  }
}

kernel rowsum_partial<P = 4, BS = 128>(X: f32[M, N], W: f32[P, M])
  requires(P >= 1)
  grid(cdiv(M, BS), P) threads(BS)
{
  let r = i32(block.x) * BS + i32(tid.x);
  let p = i32(block.y);
  let chunk = cdiv(N, P);
  if r < M {
    var s: f32 = 0.0;
    for j in min(p * chunk, N)..p * chunk + min(chunk, N - p * chunk) {
      s = s + X[r, j];
    }
    W[p, r] = s;
  }
}

kernel rowsum_finish<P = 4, BS = 128>(Y: f32[M], W: f32[P, M])
  requires(P >= 1)
  grid(cdiv(M, BS)) threads(BS)
{
  let r = i32(block.x) * BS + i32(tid.x);
  if r < M {
    var s: f32 = 0.0;
    for p in 0..P {
      s = s + W[p, r];
    }
    Y[r] = s;
  }
}

// A partial-sum kernel whose workspace has a dim (L) that only the workspace carries: a library cannot size it.
kernel rowsum_partial_unsized<BS = 128>(X: f32[M, N], W: f32[L, M])
  requires(L >= 1)
  grid(cdiv(M, BS)) threads(BS)
{
  let r = i32(block.x) * BS + i32(tid.x);
  if r < M {
    W[0, r] = X[r, 0];
  }
}
