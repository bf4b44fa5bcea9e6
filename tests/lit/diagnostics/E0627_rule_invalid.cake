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
// Documents of the wrong shape are E0627 at the value, never a crash:
// RUN: printf '[]' > %t.array.json
// RUN: %expect-exit 1 %cakec %s --verify-only --rules %t.array.json 2>&1 | %FileCheck %s --check-prefix=SHAPE
// RUN: printf '{"rules": 3}' > %t.number.json
// RUN: %expect-exit 1 %cakec %s --verify-only --rules %t.number.json 2>&1 | %FileCheck %s --check-prefix=SHAPE
// SHAPE: error: invalid rule: the file must be an object {"rules": [ ... ]} [E0627]
// RUN: printf '{"rules": [3, {"name": 1, "message": "", "op": {}, "after": "wait", "buffers": 2}], "extra": 1}' > %t.values.json
// RUN: %expect-exit 1 %cakec %s --verify-only --rules %t.values.json 2>&1 | %FileCheck %s --check-prefix=VALUES
// VALUES-DAG: values.json:1:94: error: invalid rule: unknown field 'extra' (a rules file has 'rules' and 'comment') [E0627]
// VALUES-DAG: values.json:1:12: error: invalid rule: a rule must be an object with 'name', 'message', 'op' and 'after' [E0627]
// VALUES-DAG: error: invalid rule: 'name' must be a non-empty string [E0627]
// VALUES-DAG: error: invalid rule: 'message' must be a non-empty string [E0627]
// VALUES-DAG: error: invalid rule: 'op' must be a string or an array of strings [E0627]
// VALUES-DAG: error: invalid rule: 'buffers' must be a string or an array of strings [E0627]
// An empty rule list is fine (nothing to check):
// RUN: printf '{"rules": []}' > %t.none.json
// RUN: %cakec %s --verify-only --rules %t.none.json
target sm_80;

kernel copy(X: f32[N], Y: f32[N]) grid(cdiv(N, 128)) threads(128) {
  let i = i32(block.x) * 128 + i32(tid.x);
  if i < N {
    Y[i] = X[i];
  }
}
