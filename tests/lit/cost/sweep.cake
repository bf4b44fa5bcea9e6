// --sweep ranks the variants by predicted time and lists the rejected ones with their reason and code.
// REPS multiplies the kernel's memory traffic, so the ranking must be REPS=1, 2, 4 whatever order they are
// given in; T=2048 violates threads(<= 1024) in sema.
// RUN: %cakec %s --estimate --shape N=16777216 --sweep REPS=4,1,2 T=256,2048 | %FileCheck %s
// CHECK: sweep of {{.*}}sweep.cake at N=16777216 on a100: 6 variants, 3 estimated, 3 rejected
// CHECK-NEXT: rank  predicted   bottleneck  blocks/SM  waves   kernel                variant
// CHECK-NEXT: 1 {{.*}} hbm {{.*}} k {{ *}}REPS=1 T=256
// CHECK-NEXT: 2 {{.*}} hbm {{.*}} k {{ *}}REPS=2 T=256
// CHECK-NEXT: 3 {{.*}} hbm {{.*}} k {{ *}}REPS=4 T=256
// CHECK-NEXT: rejected:
// CHECK-NEXT: REPS=4 T=2048: line {{[0-9]+}}: {{.*}} [E0408]
// --top keeps the best N.
// RUN: %cakec %s --estimate --shape N=16777216 --sweep REPS=4,1,2 --top 1 | %FileCheck %s --check-prefix=TOP
// TOP: 1 {{.*}} REPS=1
// TOP-NEXT: (2 more; --top 3 shows all)
// --json lists ranked and rejected variants.
// RUN: %cakec %s --estimate --shape N=16777216 --sweep REPS=2,1 T=256,2048 --json | %FileCheck %s --check-prefix=JSON
// JSON: {"format":"cake-sweep","version":1,"ranked":[
// JSON-NEXT: {"rank":1,"variant":"REPS=1 T=256","defines":{"REPS":1,"T":256},"estimate":{"kernel":"k"
// JSON: {"rank":2,"variant":"REPS=2 T=256"
// JSON: "rejected":[
// JSON-NEXT: {"variant":"REPS=2 T=2048","code":"E0408"
// A variant the verifier refutes is rejected with the verifier's code (here: no tail guard for small T
// multiples... the unguarded store of REPS=0 variant reads past N).
// RUN: %cakec %s --estimate --shape N=16777216 --sweep GUARD=1,0 | %FileCheck %s --check-prefix=VERIFY
// VERIFY: 2 variants, 1 estimated, 1 rejected
// VERIFY: GUARD=0: line {{[0-9]+}}: {{.*}}out of bounds{{.*}} [E0652]
// -j N analyses the variants on N threads (verification included); the output is the same for every N.
// RUN: %cakec %s --estimate --shape N=16777216 --sweep REPS=4,1,2 T=256,2048,64 GUARD=1,0 -j 1 --json > %t.j1
// RUN: %cakec %s --estimate --shape N=16777216 --sweep REPS=4,1,2 T=256,2048,64 GUARD=1,0 -j 5 --json > %t.j5
// RUN: %cakec %s --estimate --shape N=16777216 --sweep REPS=4,1,2 T=256,2048,64 GUARD=1,0 --json > %t.jall
// RUN: cmp %t.j1 %t.j5
// RUN: cmp %t.j1 %t.jall
// RUN: %FileCheck %s --check-prefix=JOBS < %t.j5
// JOBS: {"rank":1,"variant":"REPS=1 T=256 GUARD=1"
// JOBS: "rejected":[
// JOBS: "code":"E0408"
// JOBS: "code":"E0652"
target sm_80;
kernel k<REPS = 1, T = 256, GUARD = 1>(A: f32[N], B: f32[N]) requires(N >= 1, REPS >= 1) grid(cdiv(N, T)) threads(T) {
  let i = i32(block.x) * T + i32(tid.x);
  if GUARD == 0 || i < N {
    for r in 0..REPS {
      B[i] = A[i] + 1.0;
    }
  }
}
