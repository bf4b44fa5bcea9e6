// The verifier's cost on kernels/kmeans/assign_sm90.cake must not depend on which kernels are selected, nor
// explode for a legitimate ring depth.  `timeout` turns a regression into a failure (each run takes about
// 1-3 s, 30-40 s in the ASan + UBSan build; before, the first ran for more than 5 minutes and the S = 3 ones
// for about half an hour).
//
// knn_topk's shape queries (a shape with a given k-tile count, under its nonlinear requires(...)) ran in one
// incremental solver, whose nonlinear search depended on the file's other kernels (their terms in the shared
// Z3 context): alone, or with row_norms and knn_merge only, one query never came back.
// RUN: timeout $((30 * %time-scale)) %cakec --verify-only -D HD=128 --kernel knn_topk --kernel row_norms --kernel knn_merge %kernels/kmeans/assign_sm90.cake 2>&1 | %FileCheck %s --check-prefix=SELECTED
// SELECTED: verified: {{[0-9]+}} obligations proven
//
// S = 3: the period of the protocol is 12 (the X-buffer counter w repeats every 4 tiles, the ring counter
// it += 2 every 3 k-tiles), but the k-tile counts need only their own period, 3 (not 2 x 12 = 24: `kk % 4`
// of an unrolled loop makes no period).
// RUN: CAKE_VERIFY_TIMES=1 timeout $((30 * %time-scale)) %cakec --verify-only -D S=3 --kernel knn_topk %kernels/kmeans/assign_sm90.cake 2>&1 | %FileCheck %s --check-prefix=S3
// S3: verify knn_topk: sync analysis: period 12 (trip counts: 3, up to 8; tile counts up to 26)
// S3: verified: {{[0-9]+}} obligations proven
// RUN: CAKE_VERIFY_TIMES=1 timeout $((30 * %time-scale)) %cakec --verify-only -D S=3 --kernel kmeans_assign %kernels/kmeans/assign_sm90.cake 2>&1 | %FileCheck %s --check-prefix=S3A
// S3A: verify kmeans_assign: sync analysis: period 12 (trip counts: 3, up to 8; tile counts up to 26)
// S3A: verified: {{[0-9]+}} obligations proven
