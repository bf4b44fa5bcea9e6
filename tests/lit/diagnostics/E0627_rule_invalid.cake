// E0627: a rule that is valid JSON but not a rule - an unknown operation kind, a missing field, a bad
// 'paths', an unknown field, a mistyped value - is a located user error at the offending value (every one is
// reported, exit 1), never a crash.
// RUN: %expect-exit 1 %cakec %s --verify-only --rules %S/Inputs/rules_invalid.json 2>&1 | %FileCheck %s
// CHECK: rules_invalid.json:3:48: error: invalid rule: unknown operation kind 'shared.lod' (known: shared.load, shared.store, {{.*}}) [E0627]
// CHECK: rules_invalid.json:4:5: error: invalid rule: the rule has no 'after' [E0627]
// CHECK: rules_invalid.json:5:103: error: invalid rule: 'paths' is "all" or "some", not "most" [E0627]
// CHECK: rules_invalid.json:6:100: error: invalid rule: unknown field 'severity' {{.*}} [E0627]
// CHECK: rules_invalid.json:7:71: error: invalid rule: expected a string [E0627]
// CHECK-NOT: verified
target sm_80;

kernel copy(X: f32[N], Y: f32[N]) grid(cdiv(N, 128)) threads(128) {
  let i = i32(block.x) * 128 + i32(tid.x);
  if i < N {
    Y[i] = X[i];
  }
}
