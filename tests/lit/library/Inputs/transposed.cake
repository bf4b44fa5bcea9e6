// rowscale with N and M swapped in X's declaration order: M is dim 1 of X here, dim 0 in rowscale.
target sm_80;

kernel rowscale(X: f32[N, M], Y: f32[N, M])
  grid(cdiv(N, 128)) threads(128)
{
  let r = i32(block.x) * 128 + i32(tid.x);
  if r < N {
    for j in 0..M {
      Y[r, j] = X[r, j] * 2.0;
    }
  }
}
