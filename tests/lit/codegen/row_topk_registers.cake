// Per-row state across loop iterations: sorted top-k lists (arrays of row vectors, an fn insert, k = 8 and
// 32) kept in registers across accumulator tiles (bench/layouts/layouts_row_topk.cake, checked on the H200
// by bench/layouts_check.py).  It verifies, and the lists stay in registers: no local memory, no shared
// traffic besides the TMA loads.
// RUN: %cakec %samples/../bench/layouts/layouts_row_topk.cake --verify-only 2>&1 | %FileCheck %s --check-prefix=VERIFY
// RUN: %cakec %samples/../bench/layouts/layouts_row_topk.cake -D KK=32 --verify-only 2>&1 | %FileCheck %s --check-prefix=VERIFY
// RUN: %cakec %samples/../bench/layouts/layouts_row_topk.cake -D KK=32 --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %samples/../bench/layouts/layouts_row_topk.cake -D KK=32 --no-verify -o %t.cubin
// VERIFY: verified
// CHECK: shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 1, 31, -1;
// CHECK-NOT: .local
// CHECK-NOT: ld.shared
// CHECK-NOT: st.shared
