// --verify-only includes code generation (to PTX in memory): a construct that sema and the verifier accept
// but codegen cannot lower fails --verify-only too, reported once per source construct even though the
// unrolled loop lowers it four times.  --estimate says the kernel would not compile; --sweep rejects the
// variant that would not compile (text and JSON) and ranks the others.
// RUN: %expect-exit 1 %cakec %s --verify-only -D F8=1 2>&1 | %FileCheck %s --check-prefix=VERIFY
// VERIFY: verify_only_compiles.cake:[[@LINE+29]]:{{[0-9]+}}: error: code generation cannot lower scalar f8 conversions [E0707]
// VERIFY-NOT: error:
// RUN: %cakec %s --verify-only -D F8=0 2>&1 | %FileCheck %s --check-prefix=OK
// OK: verified: {{[0-9]+}} obligations proven for sm_90
// RUN: %cakec %s --estimate --shape N=4096 -D F8=1 | %FileCheck %s --check-prefix=EST
// EST: kernel k at N=4096
// EST: would not compile: line [[@LINE+23]]: code generation cannot lower scalar f8 conversions [E0707]
// RUN: %cakec %s --estimate --shape N=4096 -D F8=1 --json | %FileCheck %s --check-prefix=ESTJSON
// ESTJSON: "compiles":false,"compile_error":"line {{[0-9]+}}: code generation cannot lower scalar f8 conversions [E0707]"
// RUN: %cakec %s --estimate --shape N=4096 --sweep F8=0,1 | %FileCheck %s --check-prefix=SWEEP
// SWEEP: 2 variants, 1 estimated, 1 rejected
// SWEEP: 1 {{.*}} F8=0
// SWEEP: rejected:
// SWEEP-NEXT: F8=1: would not compile: line {{[0-9]+}}: code generation cannot lower scalar f8 conversions [E0707]
// RUN: %cakec %s --estimate --shape N=4096 --sweep F8=0,1 --json | %FileCheck %s --check-prefix=SWEEPJSON
// SWEEPJSON: "variant":"F8=0"
// SWEEPJSON: "compiles":true
// SWEEPJSON: "rejected":[
// SWEEPJSON-NEXT: {"variant":"F8=1","code":"E0707","reason":"line {{[0-9]+}}: code generation cannot lower scalar f8 conversions","compiles":false}
target sm_90;

kernel k<F8 = 0>(X: f32[N], Y: f32[N])
  requires(N >= 128)
  grid(cdiv(N, 128)) threads(32)
{
  for j in 0..4 unroll {
    let i = i32(block.x) * 128 + 32 * j + lane;
    if i < N {
      if F8 == 1 {
        Y[i] = f32(f8e4m3(X[i]));
      } else {
        Y[i] = X[i];
      }
    }
  }
}
