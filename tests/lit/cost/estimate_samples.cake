// --estimate on the samples: the report names the kernel, shape and machine, the predicted time and
// bottleneck, the counted work (hand-checkable: 2*M*N*K tensor FLOPs, 6 bytes per vector_add element) and
// a per-resource table.
// RUN: %cakec %samples/hopper_gemm.cake --estimate --no-verify --shape M=4096,N=4096,K=4096 | %FileCheck %s --check-prefix=HOPPER
// HOPPER: kernel hopper_gemm at K=4096,M=4096,N=4096 on h200
// HOPPER-NEXT: predicted {{.*}} (kernel {{.*}} + launch {{.*}})   bottleneck: {{[a-z0-9]+}}
// HOPPER-NEXT: launch      grid 32 x 16 x 1 = 512 blocks of 384 threads; 1 block(s)/SM (limited by {{.*}}); 3.88 waves, tail efficiency 97%
// HOPPER-NEXT: resources   168 registers/thread (regs() budgets), {{[0-9]+}} bytes shared/block
// HOPPER-NEXT: work        tensor 137.4 GFLOP (wgmma)
// HOPPER: loads       ld.global 0 B, cp.async 0 B, tma 1.61 GB; stores 33.6 MB
// HOPPER: pipeline    depth 4, 196.6 KB in flight per block
// HOPPER: issue       load {{[0-9]+}}%, math {{[0-9]+}}%
// HOPPER: resource    time        utilisation
// HOPPER-NEXT: issue
// HOPPER-NEXT: tensor
// HOPPER: latency
// RUN: %cakec %samples/vector_add.cake --estimate --arch sm_90 --shape N=268435456 | %FileCheck %s --check-prefix=VADD
// VADD: kernel vector_add at N=268435456 on h200
// VADD-NEXT: bottleneck: hbm
// VADD: loads       ld.global 1.07 GB, cp.async 0 B, tma 0 B; stores 536.9 MB
// VADD: hbm {{.*}}<- bottleneck
// Without --arch the sm_80 sample gets the A100 description; --machine overrides.
// RUN: %cakec %samples/vector_add.cake --estimate --shape N=1024 | %FileCheck %s --check-prefix=A100
// A100: kernel vector_add at N=1024 on a100
// RUN: %cakec %samples/vector_add.cake --estimate --shape N=1024 --machine h200 | %FileCheck %s --check-prefix=H200
// H200: kernel vector_add at N=1024 on h200
// Both kernels of a file are estimated.
// RUN: %cakec %samples/row_softmax.cake --estimate --arch sm_90 --shape R=4096,C=8192 | %FileCheck %s --check-prefix=SOFTMAX
// SOFTMAX: kernel row_softmax at C=8192,R=4096 on h200
// SOFTMAX: kernel row_softmax_f16 at C=8192,R=4096 on h200
// --json: every count, in SI units.
// RUN: %cakec %samples/hopper_gemm.cake --estimate --no-verify --shape M=4096,N=4096,K=4096 --json | %FileCheck %s --check-prefix=JSON
// JSON: {"format":"cake-estimate","version":1,"kernels":[
// JSON-NEXT: {"kernel":"hopper_gemm","machine":"h200","shape":{"K":4096,"M":4096,"N":4096},"predicted_ms":
// JSON-SAME: "blocks":512
// JSON-SAME: "wgmma_flops":1.37439e+11
// JSON-SAME: "tma_load_bytes":1.61061e+09
// JSON-SAME: "resources":[{"name":"issue"
target sm_80;
