// A NUL byte in the source, inside code and inside a comment (which it does not end).
// RUN: printf 'target sm_90a;\nkernel k() {\n  x = 1;\000\n  // a\000b\n}\n' > %t.cake
// RUN: not %cakec --verify-only %t.cake 2>&1 | FileCheck %s
// CHECK: .cake:3:9: error: NUL byte in source [E0103]
// CHECK: .cake:4:7: error: NUL byte in source [E0103]
// CHECK-NOT: error
