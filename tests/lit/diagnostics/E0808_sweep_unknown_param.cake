// E0808: only compile-time parameters can be swept.
// RUN: %cakec %s --estimate --shape N=64 --sweep THREADS=64,128 --verify-diagnostics
// expected-error@* E0808 {{--sweep names 'THREADS', which is not a compile-time parameter}}
target sm_80;
kernel k<T = 64>(A: f32[N]) requires(N >= 1) grid(cdiv(N, T)) threads(T) {
  if i32(block.x) * T + i32(tid.x) < N { A[i32(block.x) * T + i32(tid.x)] = 0.0; }
}
