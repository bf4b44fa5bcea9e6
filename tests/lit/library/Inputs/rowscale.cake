// A small kernel for the library tests: Y = 2 X, one thread per row.  V only appears in `requires`, so
// the variants built with -D V=1, 4, 8 differ in the shapes they accept (N % V == 0) and nothing else.
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
