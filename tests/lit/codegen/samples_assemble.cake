// Every sample that the front end accepts and that uses only SIMT/Ampere constructs assembles with ptxas
// (cubin + manifest) for every target this ptxas knows, the Hopper samples (TMA, wgmma, clusters) included.
// RUN: rm -rf %t.dir
// RUN: bash %S/Inputs/assemble_samples.sh %cakec %samples %t.dir | %FileCheck %s
// CHECK-DAG: vector_add sm_80: ok
// CHECK-DAG: block_reduce_sum sm_80: ok
// CHECK-DAG: row_softmax sm_80: ok
// CHECK-DAG: simt_gemm sm_80: ok
// CHECK-DAG: ampere_gemm sm_80: ok
// CHECK-DAG: ampere_gemm sm_90: ok
// CHECK-DAG: tf32_gemm sm_80: ok
// CHECK-DAG: tf32_gemm sm_90a: ok
// CHECK-DAG: vector_add sm_90a: ok
// CHECK-DAG: hopper_gemm sm_90a: ok
// CHECK-DAG: hopper_gemm_persistent sm_90a: ok
// CHECK-DAG: tma_copy sm_90: ok
// CHECK-DAG: tma_copy sm_90a: ok
// CHECK-DAG: tma_copy sm_100a: ok
// CHECK-DAG: blackwell_gemm sm_100a: ok
// CHECK-DAG: blackwell_kmeans_assign sm_100a: ok
// CHECK-NOT: skip-hopper
// CHECK-NOT: FAIL
