// E0626: a --rules file that is not JSON is a located user error in the rules file (exit 1), never a crash;
// nothing is verified.
// RUN: %expect-exit 1 %cakec %s --verify-only --rules %S/Inputs/rules_syntax_error.json 2>&1 | %FileCheck %s
// CHECK: rules_syntax_error.json:3:61: error: rules file is not valid JSON: {{.*}}syntax error{{.*}} [E0626]
// CHECK-NOT: verified
// An unreadable rules file is E0501 (exit 3), like an unreadable source file.
// RUN: %expect-exit 3 %cakec %s --verify-only --rules %S/Inputs/no_such_rules.json 2>&1 | %FileCheck %s --check-prefix=MISSING
// MISSING: cannot read '{{.*}}no_such_rules.json'{{.*}} [E0501]
// Empty, truncated and binary files are E0626 too, never a crash:
// RUN: printf '' > %t.empty.json
// RUN: %expect-exit 1 %cakec %s --verify-only --rules %t.empty.json 2>&1 | %FileCheck %s --check-prefix=BROKEN
// RUN: printf '{"rules": [{"name": "x"' > %t.truncated.json
// RUN: %expect-exit 1 %cakec %s --verify-only --rules %t.truncated.json 2>&1 | %FileCheck %s --check-prefix=BROKEN
// RUN: printf '\x01\xff\x00{' > %t.binary.json
// RUN: %expect-exit 1 %cakec %s --verify-only --rules %t.binary.json 2>&1 | %FileCheck %s --check-prefix=BROKEN
// BROKEN: error: rules file is not valid JSON: {{.*}} [E0626]
target sm_80;

kernel copy(X: f32[N], Y: f32[N]) grid(cdiv(N, 128)) threads(128) {
  let i = i32(block.x) * 128 + i32(tid.x);
  if i < N {
    Y[i] = X[i];
  }
}
