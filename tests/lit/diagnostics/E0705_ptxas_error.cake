// E0705: a ptxas error is reported at the .cake statement whose PTX failed (through the PTX source map),
// with the PTX line as a note.  The fake ptxas below rejects the line holding ex2.approx.
// RUN: %expect-exit 1 %cakec --no-verify %s -o %t.cubin --ptxas %S/../codegen/Inputs/fake_ptxas.sh 2>&1 | %FileCheck %s
// CHECK: E0705_ptxas_error.cake:[[@LINE+8]]:{{[0-9]+}}: error: ptxas rejected the generated PTX: fake rejection of ex2 [E0705]
// CHECK: note: PTX line {{[0-9]+}}: {{.*}}ex2.approx.f32
// RUN: %cakec --no-verify --verify-diagnostics %s -o %t.cubin --ptxas %S/../codegen/Inputs/fake_ptxas.sh
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  let t = i32(tid.x);
  X[t] = X[t] + 1.0;
  X[t] = ex2(X[t]);   // expected-error E0705 {{fake rejection of ex2}}
  // expected-note@* {{PTX line}}
}
