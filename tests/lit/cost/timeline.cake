// --timeline FILE.svg draws each kernel's pipeline as the cost model sees it: one lane per role (and one for
// the warps' work outside roles), the first iterations of one block and its epilogue, with load, shared-memory,
// tensor-core, FP32, other-instruction, wait and epilogue boxes.  hopper_gemm: a TMA load role and a wgmma math role.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %cakec %samples/hopper_gemm.cake --estimate --no-verify --shape M=4096,N=4096,K=4096 --timeline %t.dir/t.svg > %t.dir/text
// RUN: %FileCheck %s < %t.dir/t.svg
// CHECK: <?xml version="1.0" encoding="UTF-8"?>
// CHECK-NEXT: <svg xmlns="http://www.w3.org/2000/svg"
// CHECK: <title>timeline: {{.*}}hopper_gemm.cake at K=4096,M=4096,N=4096 on h200</title>
// CHECK: the cost model's view of one block {{.*}}, not a measurement; machine 'h200'
// CHECK: <g class="kernel">
// CHECK-NEXT: kernel hopper_gemm: {{[0-9.]+}} us predicted (shared-bound), 64 iterations per block of {{[0-9.]+}} us; iterations 1-4 and the epilogue
// CHECK: >iteration 1</text>
// CHECK: >iteration 4</text>
// CHECK: >epilogue</text>
// The load role loads (TMA boxes written to shared memory); the math role reads its operands from shared
// memory and runs wgmma.  At this shape the model finds shared memory the bottleneck and both roles busy for
// the whole iteration (no wait box wider than 0.05 units is drawn).
// CHECK: <g class="lane"><text class="role" {{.*}}>load</text>
// CHECK-NEXT: <rect class="load" {{.*}}><title>load: load {{.*}}</title></rect>
// CHECK-NEXT: <rect class="shared" {{.*}}><title>load: shared {{.*}}</title></rect>
// CHECK-NOT: class="tensor"
// CHECK: <g class="lane"><text class="role" {{.*}}>math</text>
// CHECK-NEXT: <rect class="shared" {{.*}}><title>math: shared
// CHECK-NEXT: <rect class="tensor" {{.*}}><title>math: tensor
// CHECK: <rect class="epilogue" {{.*}}><title>math: epilogue
// CHECK: <g class="lane"><text class="role" {{.*}}>(no role)</text>
// CHECK: <g class="legend"
// CHECK: </svg>
// The report on stdout is unchanged.
// RUN: %cakec %samples/hopper_gemm.cake --estimate --no-verify --shape M=4096,N=4096,K=4096 > %t.dir/plain
// RUN: cmp %t.dir/text %t.dir/plain
// The same input gives the same bytes.
// RUN: %cakec %samples/hopper_gemm.cake --estimate --no-verify --shape M=4096,N=4096,K=4096 --timeline %t.dir/again.svg > /dev/null
// RUN: cmp %t.dir/t.svg %t.dir/again.svg
// With --sweep: each kernel's fastest variant; both pictures in one run.
// RUN: %cakec %samples/hopper_gemm.cake --estimate --no-verify --shape M=4096,N=4096,K=4096 --sweep BN=128,256 --timeline %t.dir/s.svg --roofline %t.dir/sr.svg > /dev/null
// RUN: %FileCheck %s --check-prefix=SWEEP < %t.dir/s.svg
// SWEEP: <title>timeline: {{.*}}hopper_gemm.cake (fastest variant: BN={{128|256}}) at K=4096,M=4096,N=4096 on h200</title>
// SWEEP: >load</text>
// SWEEP: >math</text>
// RUN: grep -c '<circle class="point"' %t.dir/sr.svg | %FileCheck %s --check-prefix=POINTS
// POINTS: 2
// A kernel without roles has one lane for its warps.
// RUN: %cakec %samples/vector_add.cake --estimate --shape N=1048576 --timeline %t.dir/v.svg > /dev/null
// RUN: %FileCheck %s --check-prefix=NOROLE < %t.dir/v.svg
// NOROLE: kernel vector_add:
// NOROLE: <g class="lane"><text class="role" {{.*}}>(no role)</text>
// NOROLE-NEXT: <rect class="load"
// NOROLE-NOT: <g class="lane">
// The input itself is refused before anything is written (E0812, exit 2), also as the second picture.
// RUN: cp %samples/vector_add.cake %t.dir/k.cake && cp %t.dir/k.cake %t.dir/orig.cake
// RUN: %expect-exit 2 %cakec %t.dir/k.cake --estimate --shape N=1024 --roofline %t.dir/r.svg --timeline %t.dir/k.cake 2>&1 | %FileCheck %s --check-prefix=INPUT
// INPUT: cakec: error: refusing to write '{{.*}}k.cake': it is the input file [E0812]
// RUN: cmp %t.dir/k.cake %t.dir/orig.cake
// RUN: test ! -e %t.dir/r.svg
// Both pictures in one file, or a picture on stdout, are usage errors.
// RUN: %expect-exit 2 %cakec %t.dir/k.cake --estimate --shape N=1024 --roofline %t.dir/p.svg --timeline %t.dir/p.svg 2>&1 | %FileCheck %s --check-prefix=SAME
// SAME: --roofline and --timeline name the same file
// RUN: %expect-exit 2 %cakec %t.dir/k.cake --estimate --shape N=1024 --timeline - 2>&1 | %FileCheck %s --check-prefix=STDOUT
// STDOUT: a picture goes to a file
