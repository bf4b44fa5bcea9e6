// E0805: --machine must name a description in machines/ (or a readable, complete JSON file).
// RUN: %cakec %s --estimate --shape N=64 --machine no_such_gpu --verify-diagnostics
// RUN: echo '{"name": "half", "archs": ["sm_80"]}' > %t.json
// RUN: %expect-exit 1 %cakec %s --estimate --shape N=64 --machine %t.json 2>&1 | %FileCheck %s
// CHECK: error: cannot use machine description '{{.*}}.json': missing field 'sms' [E0805]
// expected-error@* E0805 {{cannot use machine description 'no_such_gpu': no machine named 'no_such_gpu'}}
target sm_80;
kernel k(A: f32[N]) requires(N >= 1) grid(cdiv(N, 64)) threads(64) {
  if i32(block.x) * 64 + i32(tid.x) < N { A[i32(block.x) * 64 + i32(tid.x)] = 0.0; }
}
