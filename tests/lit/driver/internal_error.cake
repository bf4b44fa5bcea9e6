// An internal compiler error (here forced by a hidden test hook) is reported as such, with exit code 4,
// never as a diagnostic about the input.
// RUN: %expect-exit 4 %cakec %s --verify-only --debug-force-internal-error 2>&1 | %FileCheck %s
// CHECK: internal compiler error: at {{.*}}Driver.cpp:{{[0-9]+}}: forced by --debug-force-internal-error
// CHECK-NEXT: cakec {{.*}} failed on '{{.*}}internal_error.cake'; this is a bug in cakec, not in the input
// CHECK-NOT: [E
target sm_80;
