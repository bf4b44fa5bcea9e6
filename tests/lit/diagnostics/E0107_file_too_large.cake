// A source file over 64 MiB is refused before it is lexed.
// RUN: rm -f %t.cake && truncate -s 67108865 %t.cake
// RUN: not %cakec --verify-only %t.cake 2>&1 | FileCheck %s
// CHECK: error: source file is 67108865 bytes; the limit is 67108864 [E0107]
// CHECK-NOT: error
