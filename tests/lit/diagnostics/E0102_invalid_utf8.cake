// Invalid UTF-8 inside a comment (the bytes are generated, so this file itself stays valid UTF-8).
// RUN: printf 'target sm_90a;\nkernel k() {\n  x = 1; // caf\351 is Latin-1\n}\n' > %t.cake
// RUN: not %cakec --verify-only %t.cake 2>&1 | FileCheck %s
// CHECK: .cake:3:16: error: invalid UTF-8 byte sequence [E0102]
// CHECK-NOT: error
