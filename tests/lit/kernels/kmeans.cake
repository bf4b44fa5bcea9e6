// The k-means kernels (kernels/kmeans/) compile to the schedule their headers describe.  The assignment
// kernel's --verify-only takes minutes (bench/kmeans_build.sh builds every variant with it and records
// ok / ok-unverified); here the centroid update is verified and the assignment's PTX is checked.
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
// RUN: %cakec --no-verify --emit=ptx -D AREG=0 -D PP=0 %kernels/kmeans/assign_sm90.cake -o - | %FileCheck %s --check-prefix=SMEM
// SMEM-NOT: ldmatrix
// SMEM-NOT: bar.arrive
// SMEM: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{{.*}}}, {{%rd[0-9]+}}, {{%rd[0-9]+}}
