// E0859: a legal shape that no entry serves - the fallback (V = 4) refuses odd N; and a fallback built for
// sm_80 does not run on an sm_90a device, so shapes the sm_90a entry leaves are served by nothing there.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/gap.json -o %t 2>&1 | %FileCheck %s
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/gap_arch.json -o %t 2>&1 | %FileCheck %s --check-prefix=ARCH
// CHECK: gap.json:11:18: error: sm_80: no variant serves M = {{[0-9]+}}, N = {{[0-9]+}} [E0859]
// CHECK: note: the fallback 'v4' refuses it: requires(N % V == 0)
// ARCH: gap_arch.json:12:18: error: sm_90a: no variant serves M = {{[0-9]+}}, N = {{[0-9]+}} [E0859]
// ARCH: note: the fallback 'any' is built for sm_80, which does not run on sm_90a
target sm_80;
