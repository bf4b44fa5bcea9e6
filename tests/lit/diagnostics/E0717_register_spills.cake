// E0717 (warning, -Wspills): ptxas keeps values in local memory.  64 accumulators live across the loop do not
// fit --maxrregcount 32; the cubin is still written.  -Werror=spills stops the compile before any output.
// RUN: rm -f %t.cubin %t2.cubin
// RUN: %cakec --verify-diagnostics -maxrregcount 32 %s -o %t.cubin
// RUN: %cakec -maxrregcount 32 %s -o %t.cubin 2>&1 | %FileCheck %s
// CHECK: warning: kernel 'k' spills registers to local memory: {{[1-9][0-9]*}} bytes stored, {{[0-9]+}} bytes loaded [E0717]
// RUN: test -f %t.cubin
// RUN: %expect-exit 1 %cakec -maxrregcount 32 -Werror=spills %s -o %t2.cubin 2>&1 | %FileCheck %s --check-prefix=ERR
// ERR: error: kernel 'k' spills registers
// RUN: test ! -e %t2.cubin
// RUN: %cakec %s -o %t3.cubin 2>&1 | %FileCheck %s --check-prefix=NONE --allow-empty
// NONE-NOT: E0717
target sm_80;

kernel k(X: f32[N], Y: f32[N]) requires(N >= 64) grid(1) threads(32) { // expected-warning E0717 {{kernel 'k' spills registers to local memory}}
  var acc: f32[64];
  for j in 0..64 unroll {
    acc[j] = 0.0;
  }
  for i in 0..N - 63 {
    for j in 0..64 unroll {
      acc[j] = acc[j] * X[i + j] + X[i];
    }
  }
  if tid.x == 0 {
    for j in 0..64 unroll {
      Y[j] = acc[j];
    }
  }
}
