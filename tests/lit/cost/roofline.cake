// --roofline FILE.svg draws the estimates against the machine's ceilings: one point per ranked variant
// (numbered by rank, slowest drawn first), the HBM and L2 roofs and the tensor-core and FP32 peaks of the
// machine (a100 for sm_80), log axes of FLOP per DRAM byte and FLOP/s; rejected variants are not drawn.
// REPS multiplies the work (FLOPs faster than DRAM bytes), so the ranks are REPS=1, 2, 4 at three intensities.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %cakec %s --estimate --shape N=16777216 --sweep REPS=4,1,2 T=256,2048 --roofline %t.dir/r.svg > %t.dir/text
// RUN: %FileCheck %s < %t.dir/r.svg
// CHECK: <?xml version="1.0" encoding="UTF-8"?>
// CHECK-NEXT: <svg xmlns="http://www.w3.org/2000/svg"
// CHECK: <title>roofline: sweep of {{.*}}roofline.cake at N=16777216 on a100</title>
// CHECK: predicted by the cost model, not measured; ceilings at peak from machine 'a100'
// CHECK: arithmetic intensity (FLOP per DRAM byte)
// CHECK: achieved FLOP/s (predicted time)
// CHECK: <g class="ceilings"
// CHECK: <line class="roof"
// CHECK: <line class="roof"
// CHECK: <line class="peak"
// CHECK: <line class="peak"
// CHECK: <g class="ceiling-labels"
// CHECK-NEXT: >HBM 2.04 TB/s</text>
// CHECK-NEXT: >L2 {{[0-9.]+}} TB/s</text>
// CHECK-NEXT: >tensor core (16-bit) 312 TFLOP/s</text>
// CHECK-NEXT: >FP32 19.5 TFLOP/s</text>
// CHECK: <g class="points">
// CHECK-NEXT: <circle class="point" {{.*}}><title>3: REPS=4 T=256 - {{.*}} bottleneck {{[a-z0-9]+}}</title></circle>
// CHECK-NEXT: <circle class="point" {{.*}}><title>2: REPS=2 T=256 - {{.*}}</title></circle>
// CHECK-NEXT: <circle class="point" {{.*}}><title>1: REPS=1 T=256 - {{.*}}</title></circle>
// CHECK-NEXT: <text class="point-label" {{.*}}>1</text>
// CHECK-NEXT: <text class="point-label" {{.*}}>2</text>
// CHECK-NEXT: <text class="point-label" {{.*}}>3</text>
// CHECK-NEXT: </g>
// CHECK-NEXT: <g class="table"
// CHECK-NEXT: <text class="table-head"
// CHECK-NEXT: <text class="table-row" {{.*}}>1</tspan>{{.*}}>REPS=1 T=256</tspan></text>
// CHECK-NEXT: <text class="table-row" {{.*}}>2</tspan>{{.*}}>REPS=2 T=256</tspan></text>
// CHECK-NEXT: <text class="table-row" {{.*}}>3</tspan>{{.*}}>REPS=4 T=256</tspan></text>
// CHECK-NEXT: </g>
// CHECK-NEXT: </svg>
// RUN: not grep -q T=2048 %t.dir/r.svg
// The report on stdout is the sweep's as without --roofline.
// RUN: %cakec %s --estimate --shape N=16777216 --sweep REPS=4,1,2 T=256,2048 > %t.dir/plain
// RUN: cmp %t.dir/text %t.dir/plain
// The same input gives the same bytes (on any number of threads).
// RUN: %cakec %s --estimate --shape N=16777216 --sweep REPS=4,1,2 T=256,2048 -j 1 --roofline %t.dir/again.svg > /dev/null
// RUN: cmp %t.dir/r.svg %t.dir/again.svg
// --top N draws the N fastest, as the ranking shows them.
// RUN: %cakec %s --estimate --shape N=16777216 --sweep REPS=4,1,2 --top 2 --roofline %t.dir/top.svg > /dev/null
// RUN: grep -c '<circle class="point"' %t.dir/top.svg | %FileCheck %s --check-prefix=TOP
// TOP: 2
// Without --sweep: one point per kernel, labelled with its name.
// RUN: %cakec %s --estimate --shape N=16777216 -D REPS=2 --roofline %t.dir/one.svg > /dev/null
// RUN: %FileCheck %s --check-prefix=ONE < %t.dir/one.svg
// ONE: <title>roofline: {{.*}}roofline.cake at N=16777216 on a100</title>
// ONE: <circle class="point" {{.*}}><title>1: k - {{.*}}</title></circle>
// ONE-NOT: <circle
// An existing picture is replaced; the input itself is refused before anything is written (E0812, exit 2).
// RUN: cp %s %t.dir/v.cake && cp %s %t.dir/orig.cake
// RUN: %expect-exit 2 %cakec %t.dir/v.cake --estimate --shape N=1024 --roofline %t.dir/v.cake 2>&1 | %FileCheck %s --check-prefix=INPUT
// INPUT: cakec: error: refusing to write '{{.*}}v.cake': it is the input file [E0812]
// INPUT-NOT: kernel k
// RUN: cmp %t.dir/v.cake %t.dir/orig.cake
// --roofline needs --estimate.
// RUN: %expect-exit 2 %cakec %s --roofline %t.dir/x.svg 2>&1 | %FileCheck %s --check-prefix=NEEDS
// NEEDS: --roofline{{.*}}requires --estimate
target sm_80;
kernel k<REPS = 1, T = 256>(A: f32[N], B: f32[N]) requires(N >= 1, REPS >= 1) grid(cdiv(N, T)) threads(T) {
  let i = i32(block.x) * T + i32(tid.x);
  if i < N {
    for r in 0..REPS {
      B[i] = B[i] + A[i] * 2.0;
    }
  }
}
