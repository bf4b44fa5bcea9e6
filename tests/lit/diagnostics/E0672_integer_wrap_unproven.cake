// E0672: the wrap-around proof of a condition gets a share of the solver limit (--verify-timeout / 10);
// a square of a sum of two parameters bounded only through a non-linear requires(...) is decided neither
// way within it, and the verifier says so as a warning: the wrap-around is neither proven nor refuted, and
// the kernel's other obligations still decide the result.
// RUN: %cakec --verify-only --verify-timeout=1 --verify-diagnostics %s
// The warning does not fail verification: the kernel's other obligations are proven.
// RUN: %cakec --verify-only --verify-timeout=1 %s 2>&1 | %FileCheck %s
// CHECK: verified: 2 obligations proven
// CHECK: warning: could not prove that the condition '(K + M) * (K + M) % 7 == 1' cannot wrap around{{.*}}[E0672]
target sm_80;

kernel k(X: f32[N], K: i32, M: i32) requires(K >= 1, M >= 1, K * M <= 100000) grid(1) threads(32) {
  var x: f32 = 0.0;
  // expected-warning@+1 E0672 {{could not prove that the condition '(K + M) * (K + M) % 7 == 1' cannot wrap around}}
  if (K + M) * (K + M) % 7 == 1 {
    x = 1.0;
  }
  if tid.x == 0 {
    X[0] = x;
  }
}
