// A diagnostic on a very long source line prints a clipped window around the range ("..." where text was
// cut), not the whole line plus an equally long caret line (old: 10 MB line -> 20 MB of output, 0.5 s/MB).
// RUN: %python -c "print('target sm_80;\nkernel k(X: f32[N]) grid(1) threads(32) { X[0] = 1.0; ' + ' ' * 3000000 + 'X[0] = y; }')" > %t.cake
// RUN: %expect-exit 1 %cakec %t.cake --verify-only 2> %t.err
// RUN: %FileCheck %s < %t.err
// CHECK: error: {{.*}}'y'{{.*}} [E0301]
// CHECK: 2 | ...{{ +}}X[0] = y; }
// CHECK-NEXT: |{{ +}}^
// RUN: test $(wc -c < %t.err) -lt 2000
target sm_80;
