// E0807: --sweep items are NAME=V1,V2,... with integer values, each name once.
// RUN: %cakec %s --estimate --shape N=64 --sweep T=64,x --verify-diagnostics
// RUN: %expect-exit 1 %cakec %s --estimate --shape N=64 --sweep T=64 T=128 2>&1 | %FileCheck %s
// CHECK: error: malformed --sweep item 'T=128': 'T' is swept twice [E0807]
// expected-error@* E0807 {{malformed --sweep item 'T=64,x': 'x' is not an integer}}
target sm_80;
kernel k<T = 64>(A: f32[N]) requires(N >= 1) grid(cdiv(N, T)) threads(T) {
  if i32(block.x) * T + i32(tid.x) < N { A[i32(block.x) * T + i32(tid.x)] = 0.0; }
}
