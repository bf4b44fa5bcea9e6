// The k-means kernels (kernels/kmeans/) verify and compile to the schedule their headers describe.
// assign_sm90.cake verifies whole (kmeans_assign, knn_topk, knn_merge, row_norms, knn_small) with the limit its header's
// knn_topk needs, with no warning; so does knn_topk's quad-list variant for k = 64 with the default limit.
// RUN: %cakec --verify-only --verify-timeout=10000 %kernels/kmeans/assign_sm90.cake 2>&1 | %FileCheck %s --check-prefix=SM90
// SM90: verified
// SM90-NOT: warning
// (knn_small holds KK <= 32: --kernel leaves it out of the k = 64 builds, as the library specs' "compile" does)
// RUN: %cakec --verify-only -D QL=1 -D KK=64 -D BN=64 --kernel knn_topk --kernel knn_merge --kernel row_norms %kernels/kmeans/assign_sm90.cake 2>&1 | %FileCheck %s --check-prefix=QUADLIST
// QUADLIST: verified
// QUADLIST-NOT: warning
// the quad-list epilogue gates on one vote per row and moves entries between the quad's lanes with shfl.up:
// RUN: %cakec --no-verify --emit=ptx -D QL=1 -D KK=64 -D BN=64 --kernel knn_topk %kernels/kmeans/assign_sm90.cake -o - | %FileCheck %s --check-prefix=QLPTX
// QLPTX-DAG: vote.sync.any.pred
// QLPTX-DAG: shfl.sync.up.b32
// knn_small (norms, lists and merge in one launch, or corpus pieces merged by knn_merge) verifies with knn_merge
// in the layouts the small library builds (per-thread lists, quad lists up to k = 64, eight warps sharing the
// query rows); a kernel name the file lacks is a usage error that lists the file's kernels:
// RUN: %cakec --verify-only --kernel knn_small --kernel knn_merge -D HD=64 -D S=8 -D KK=10 %kernels/kmeans/assign_sm90.cake 2>&1 | %FileCheck %s --check-prefix=SMALL
// RUN: %cakec --verify-only --kernel knn_small --kernel knn_merge -D HD=256 -D S=4 -D KK=1 %kernels/kmeans/assign_sm90.cake 2>&1 | %FileCheck %s --check-prefix=SMALL
// RUN: %cakec --verify-only --kernel knn_small --kernel knn_merge -D HD=128 -D S=6 -D KK=64 -D QL=1 %kernels/kmeans/assign_sm90.cake 2>&1 | %FileCheck %s --check-prefix=SMALL
// RUN: %cakec --verify-only --kernel knn_small --kernel knn_merge -D HD=64 -D S=8 -D KK=32 -D QL=1 -D BN=16 -D WC=8 %kernels/kmeans/assign_sm90.cake 2>&1 | %FileCheck %s --check-prefix=SMALL
// SMALL: verified
// SMALL-NOT: warning
// RUN: not %cakec --verify-only --kernel knn_smal %kernels/kmeans/assign_sm90.cake 2>&1 | %FileCheck %s --check-prefix=NOKERNEL
// NOKERNEL: error: --kernel knn_smal: {{.*}}assign_sm90.cake has no such kernel (its kernels: kmeans_assign, knn_topk, knn_merge, row_norms, knn_small)
// RUN: %cakec --verify-only %kernels/kmeans/centroid_update.cake 2>&1 | %FileCheck %s --check-prefix=UPDATE
// UPDATE: verified
// RUN: %cakec --verify-only %kernels/kmeans/assign_sm80.cake 2>&1 | %FileCheck %s --check-prefix=SM80
// SM80: verified
// RUN: %cakec --no-verify --emit=ptx %kernels/kmeans/assign_sm80.cake -o - | %FileCheck %s --check-prefix=SM80PTX
// the centroid ring through cp.async, K-major B fragments without a transpose, m16n8k16 mma:
// SM80PTX-DAG: cp.async.cg.shared.global
// SM80PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM80PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM80PTX-NOT: ldmatrix.sync.aligned.m8n8.x4.trans
// RUN: %cakec --no-verify --emit=ptx %kernels/kmeans/assign_sm90.cake -o - | %FileCheck %s --check-prefix=KNN
// the KNN pair and the norms kernel live beside the assignment; the merge is warp-wide:
// KNN-DAG: .entry knn_topk
// KNN-DAG: .entry knn_merge
// KNN-DAG: .entry row_norms
// KNN-DAG: shfl.sync.bfly.b32
// RUN: %cakec --no-verify --emit=ptx %kernels/kmeans/assign_sm90.cake -o - | %FileCheck %s
// X rows into registers once per work tile, then wgmmas with the A operand in registers:
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{{.*}}}, {{{%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+}}}, {{%rd[0-9]+}}
// the consumers take turns (named barriers 1 and 2, 256 threads):
// CHECK-DAG: bar.sync {{%r[0-9]+|[12]}}, 256;
// CHECK-DAG: bar.arrive {{%r[0-9]+|[12]}}, 256;
// the norms come from shared memory:
// CHECK-DAG: ld.shared.f32
// the i64 ring counters' stage and parity (it % S, it / S) are shifts and masks: a 64-bit div/rem by a
// constant is a call to ptxas's division routine (it put the assignment at 0.6-0.85x flashlib), for S = 4 and
// the odd S = 5 alike
// RUN: %cakec --no-verify --emit=ptx %kernels/kmeans/assign_sm90.cake -o - | %FileCheck %s --check-prefix=NODIV64
// RUN: %cakec --no-verify --emit=ptx -D S=5 %kernels/kmeans/assign_sm90.cake -o - | %FileCheck %s --check-prefix=NODIV64
// NODIV64-NOT: {{(div|rem)\.s64}}
// NODIV64: .entry kmeans_assign
// NODIV64-NOT: {{(div|rem)\.s64}}
// RUN: %cakec --no-verify --emit=ptx -D AREG=0 -D PP=0 %kernels/kmeans/assign_sm90.cake -o - | %FileCheck %s --check-prefix=SMEM
// SMEM-NOT: ldmatrix
// SMEM-NOT: bar.arrive
// SMEM: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{{.*}}}, {{%rd[0-9]+}}, {{%rd[0-9]+}}
