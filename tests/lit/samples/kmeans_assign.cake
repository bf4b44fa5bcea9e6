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
// -D SPLIT=1: both consumers own the same 64 rows and split the centroid tiles; their running argmins are
// merged across the consumers (argmin_across).  It verifies: the sync simulator orders consumer 1's row-vector
// stores before consumer 0's reads through the named barrier `xch` (256 threads: both consumers).
// RUN: %cakec --verify-only --verify-diagnostics -D SPLIT=1 %samples/kmeans_assign.cake
// The only shared traffic besides TMA and wgmma is the merge: two rows of (value, index) per quad's first
// lane, the barrier, and consumer 0's reads of them.
// RUN: %cakec --no-verify --emit=ptx -D SPLIT=1 %samples/kmeans_assign.cake -o - | %FileCheck %s --check-prefix=SPLIT
// SPLIT-NOT: stmatrix
// SPLIT: @%p{{[0-9]+}} st.shared.f32
// SPLIT: @%p{{[0-9]+}} st.shared.f32
// SPLIT: @%p{{[0-9]+}} st.shared.b32
// SPLIT: @%p{{[0-9]+}} st.shared.b32
// SPLIT: bar.sync 1, 256;
// SPLIT: ld.shared.f32
// SPLIT: ld.shared.f32
// SPLIT: ld.shared.b32
// SPLIT: ld.shared.b32
// SPLIT-NOT: st.shared
// SPLIT-NOT: ld.shared
// Without the barrier consumer 0 may read the other's rows before they are written; with a 128-thread
// barrier each consumer completes it alone, which orders nothing.
// RUN: grep -v '^  sync xch;' %samples/kmeans_assign.cake > %t.nosync.cake
// RUN: not %cakec --verify-only -D SPLIT=1 %t.nosync.cake 2>&1 | %FileCheck %s --check-prefix=NOSYNC
// NOSYNC: error: math[0] reads 'xv' before it has observed the write that fills it [E0610]
// NOSYNC: note: filled here by math[1]
// NOSYNC: note: 'argmin_across' inlined from here
// RUN: sed 's/barrier xch id(1) threads(256);/barrier xch id(1) threads(128);/' %samples/kmeans_assign.cake > %t.half.cake
// RUN: not %cakec --verify-only -D SPLIT=1 %t.half.cake 2>&1 | %FileCheck %s --check-prefix=HALF
// HALF-DAG: error: math[0] reads 'xv' before it has observed the write that fills it [E0610]
// HALF-DAG: error: named barrier 'xch' (id 1) is used by role 'math[0]' and by role 'math[1]', and each of them alone fills its count of 128 threads [E0641]
// `&&` / `||` on pred row vectors are element-wise: each of the thread's two rows gets its own and/or (the
// merge's tie rule once took the first row's predicate for both rows).
// RUN: %cakec --no-verify --emit=ptx -D SPLIT=1 %samples/kmeans_assign.cake -o - | %FileCheck %s --check-prefix=LOGIC
// LOGIC: bar.sync 1, 256;
// LOGIC: and.pred [[A0:%p[0-9]+]]
// LOGIC-NEXT: and.pred [[A1:%p[0-9]+]]
// LOGIC-NEXT: or.pred [[O0:%p[0-9]+]], {{%p[0-9]+}}, [[A0]];
// LOGIC-NEXT: or.pred [[O1:%p[0-9]+]], {{%p[0-9]+}}, [[A1]];
// LOGIC: selp.f32 {{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}, [[O0]];
// LOGIC: selp.f32 {{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}, [[O1]];
