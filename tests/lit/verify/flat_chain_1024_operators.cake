// RUN: %cakec --verify-only %s
// Everything the parser accepts, the verifier follows: a flat chain of 1024 '+' (the parser's limit, E0813,
// apart from its 256 levels of nesting) in an index is translated and proven like a short one - the index is
// in bounds and computed without wrap-around - where the verifier used to stop at 256 levels ("expression is
// nested too deeply", E0601).  The same chain one '+' short of wrapping: see the second kernel.
// RUN: %python -c "print('target sm_80;\nkernel k(A: f32[N]) requires(N >= 32) grid(1) threads(32) {\n  let i = (' + ' + '.join(['i32(tid.x)'] * 1025) + ') %% 32;\n  A[i] = 1.0;\n}')" > %t.long.cake
// RUN: %cakec --verify-only %t.long.cake 2>&1 | %FileCheck %s --check-prefix=LONG
// LONG: verified:
// LONG-NOT: E0601
// RUN: %python -c "print('target sm_80;\nkernel k(A: f32[N]) requires(N >= 32) grid(1) threads(32) {\n  let i = (' + ' + '.join(['N'] * 1025) + ') %% 32;\n  A[i] = 1.0;\n}')" > %t.wrap.cake
// RUN: %expect-exit 1 %cakec --verify-only %t.wrap.cake 2>&1 | %FileCheck %s --check-prefix=WRAP
// WRAP: can wrap around: {{.*}} [E0670]
target sm_80;

kernel k(A: f32[N]) requires(N >= 32) grid(1) threads(32) {
  A[i32(tid.x) % 16 + i32(tid.x) % 16] = 1.0;
}
