// E0706: producing a cubin without a runnable ptxas is an environment failure: exit code 3, nothing written.
// RUN: rm -f %t.cubin
// RUN: %expect-exit 3 %cakec %s -o %t.cubin --ptxas %t.no-such-ptxas 2>&1 | %FileCheck %s
// CHECK: cakec: error: cannot run ptxas: '{{.*}}no-such-ptxas' is not an executable file [E0706]
// RUN: test ! -e %t.cubin
// RUN: %expect-exit 3 %cakec --verify-diagnostics %s -o %t.cubin --ptxas %t.no-such-ptxas
// expected-error@* E0706 {{cannot run ptxas}}
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
