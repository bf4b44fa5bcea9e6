// An unusable $TMPDIR is an environment failure (exit 3, E0706 naming it), not an internal error (exit 4).
// RUN: %expect-exit 3 env TMPDIR=%t.no-such-dir %cakec %s -o %t.cubin 2>&1 | %FileCheck %s
// CHECK: cakec: error: cannot run ptxas: cannot create a temporary directory for ptxas: $TMPDIR '{{.*}}no-such-dir' is unusable ({{.*}}) [E0706]
// RUN: test ! -e %t.cubin
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
