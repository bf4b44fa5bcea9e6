// A --sweep shows a progress bar on stderr when stderr is a terminal and the sweep runs longer than a second
// (CAKEC_PROGRESS_AFTER_MS=0 here: at once; redrawn at most ten times a second, and at the end), and erases
// it before the report; --no-progress turns it off, and off a terminal (pipes, files: every other test)
// nothing is written.
// RUN: env CAKEC_PROGRESS_AFTER_MS=0 %python %S/../driver/Inputs/stderr_on_a_tty.py %cakec %s --estimate --no-verify --shape N=1048576 --sweep REPS=1,2,3 -j 1 | %FileCheck %s
// CHECK: \rsweep [##########....................] 1/3 {{[0-9.]+}} s
// CHECK-SAME: \rsweep [##############################] 3/3 {{[0-9.]+}} s\r{{ +}}\r
// CHECK-NEXT: exit 0
// RUN: env CAKEC_PROGRESS_AFTER_MS=0 %python %S/../driver/Inputs/stderr_on_a_tty.py %cakec %s --estimate --no-verify --shape N=1048576 --sweep REPS=1,2,3 -j 1 --no-progress | %FileCheck %s --check-prefix=OFF
// OFF: {{^$}}
// OFF-NEXT: exit 0
// Off a terminal: stderr stays empty.
// RUN: env CAKEC_PROGRESS_AFTER_MS=0 %cakec %s --estimate --no-verify --shape N=1048576 --sweep REPS=1,2,3 2> %t.err > /dev/null
// RUN: count 0 < %t.err
// By default a short sweep shows nothing, even on a terminal.
// RUN: %python %S/../driver/Inputs/stderr_on_a_tty.py %cakec %s --estimate --no-verify --shape N=1048576 --sweep REPS=1,2 | %FileCheck %s --check-prefix=OFF
target sm_80;
kernel k<REPS = 1>(A: f32[N], B: f32[N]) requires(N >= 1, REPS >= 1) grid(cdiv(N, 256)) threads(256) {
  let i = i32(block.x) * 256 + i32(tid.x);
  if i < N {
    for r in 0..REPS {
      B[i] = B[i] + A[i] * 2.0;
    }
  }
}
