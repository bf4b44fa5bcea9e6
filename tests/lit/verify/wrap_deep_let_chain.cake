// RUN: %cakec --verify-only --verify-diagnostics %s
// An if condition at the end of 1400 lets, each the previous one plus 1, that starts from 'N * 4': the chain
// is deeper than the 1280 levels the wrap-around search follows (the deepest expression the parser builds), so the condition's wrap-around (N * 4 passes
// 2^31 for N >= 2^29) is not checked there.  It is reported as unproven (E0672), never passed silently
// ("verified", no warning, as before).  The same kernel with a short chain is refuted (E0670).
// RUN: %python -c "import sys; n = int(sys.argv[1]); print('target sm_80;\nkernel k(A: f32[N]) requires(N >= 1) grid(1) threads(32) {\n  let a0 = N * 4;\n' + ''.join('  let a%%d = a%%d + 1;\n' %% (k, k - 1) for k in range(1, n)) + '  if a%%d > 0 {\n    A[0] = 1.0;\n  }\n}' %% (n - 1))" 1400 > %t.deep.cake
// RUN: %cakec --verify-only %t.deep.cake 2>&1 | %FileCheck %s --check-prefix=DEEP
// DEEP: warning: could not prove that the condition 'a1399 > 0' cannot wrap around: it is nested deeper than 1280 levels, counting the lets it uses, which is past what the verifier follows [E0672]
// RUN: %python -c "import sys; n = int(sys.argv[1]); print('target sm_80;\nkernel k(A: f32[N]) requires(N >= 1) grid(1) threads(32) {\n  let a0 = N * 4;\n' + ''.join('  let a%%d = a%%d + 1;\n' %% (k, k - 1) for k in range(1, n)) + '  if a%%d > 0 {\n    A[0] = 1.0;\n  }\n}' %% (n - 1))" 6 > %t.short.cake
// RUN: %expect-exit 1 %cakec --verify-only %t.short.cake 2>&1 | %FileCheck %s --check-prefix=SHORT
// SHORT: error: '{{.*}}' can wrap around: {{.*}} [E0670]
target sm_80;

// This file itself: a condition well inside the limit is checked as usual.
kernel k(A: f32[N]) requires(N >= 1, N <= 1000) grid(1) threads(32) {
  let a0 = N * 4;
  let a1 = a0 + 1;
  if a1 > 0 {
    A[0] = 1.0;
  }
}
