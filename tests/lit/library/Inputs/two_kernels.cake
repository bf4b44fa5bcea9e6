// Two kernels in one file for the library's "compile" key: `halve` holds only V <= 4 (its register array), so a
// variant built with V = 8 must leave it out.
target sm_80;

kernel rowscale<V = 1, BS = 128>(X: f32[M, N], Y: f32[M, N])
  requires(N % V == 0, M >= 1)
  grid(cdiv(M, BS)) threads(BS)
{
  let r = i32(block.x) * BS + i32(tid.x);
  if r < M {
    for j in 0..N {
      Y[r, j] = X[r, j] * 2.0;
    }
  }
}

kernel halve<V = 1>(X: f32[M], Y: f32[M])
  requires(V <= 4)
  grid(cdiv(M, 128)) threads(128)
{
  let r = i32(block.x) * 128 + i32(tid.x);
  if r < M {
    Y[r] = X[r] * 0.5;
  }
}
