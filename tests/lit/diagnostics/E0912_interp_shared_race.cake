// E0912: warp 1 reads what warp 0 wrote with no barrier in between (the syncthreads is missing); reported
// under every schedule, with the other access and the seed.
// RUN: %expect-exit 1 %cakec run %s --shape N=32 2>&1 | %FileCheck %s
// RUN: %expect-exit 1 %cakec run %s --shape N=32 --seed 4 2>&1 | %FileCheck %s
// CHECK: error: data race on shared 'buf' element [{{[0-9]+}}]: a {{read|write}} by warp {{[01]}} and a {{read|write}} by warp {{[01]}} are not ordered [E0912]
// CHECK: note: the other access: warp {{[01]}}
// CHECK: note: exposed by the schedule of --seed
target sm_80;

kernel k(X: f32[N]) grid(1) threads(64) {
  shared buf: f32[32];
  if warp == 0 {
    buf[lane] = 1.0;
  }
  if warp == 1 {
    X[lane] = buf[31 - lane];
  }
}
