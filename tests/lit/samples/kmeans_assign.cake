// samples/kmeans_assign.cake passes the front end with zero diagnostics and its canonical IR round-trips.
// RUN: %cakec --verify-only --verify-diagnostics %samples/kmeans_assign.cake
// RUN: %cakec --emit=ir %samples/kmeans_assign.cake -o %t.cake
// RUN: %cakec --verify-only --verify-diagnostics %t.cake
// The epilogue works on the accumulator in registers: no shared-memory traffic besides TMA and wgmma.
// RUN: %cakec --no-verify --emit=ptx %samples/kmeans_assign.cake -o - | %FileCheck %s --check-prefix=NOSHARED
// NOSHARED-NOT: ld.shared
// NOSHARED-NOT: st.shared
// NOSHARED-NOT: stmatrix
// rowargmin: two rounds of shuffles of the value and the column per row:
// RUN: %cakec --no-verify --emit=ptx %samples/kmeans_assign.cake -o - | %FileCheck %s --check-prefix=ARG
// ARG: shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 1, 31, -1;
// ARG-NEXT: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1, 31, -1;
