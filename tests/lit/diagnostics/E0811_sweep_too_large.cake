// E0811: a sweep of more than 4096 variants is refused before anything is compiled.
// RUN: %cakec %s --estimate --shape N=64 --sweep A=1,2,3,4,5,6,7,8 B=1,2,3,4,5,6,7,8 C=1,2,3,4,5,6,7,8 D=1,2,3,4,5,6,7,8,9 --verify-diagnostics
// expected-error@* E0811 {{--sweep expands to 4608 variants; the limit is 4096}}
target sm_80;
kernel k<A = 1, B = 1, C = 1, D = 1>(X: f32[N]) requires(N >= 1) grid(cdiv(N, 64)) threads(64) {
  if i32(block.x) * 64 + i32(tid.x) < N { X[i32(block.x) * 64 + i32(tid.x)] = 0.0; }
}
