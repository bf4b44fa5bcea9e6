// An induction counter's step is a constant however it is written: barrier_array_tma_epilogue.cake with each
// `it += 1` spelt as a flat chain of 300 '+' (1 + 0 + ... + 0) verifies like the original, where the counter
// recogniser used to stop at 32 levels ("its increment is not a non-zero compile-time constant", E0601).  A
// step whose product overflows i64 is not a constant (the recogniser's arithmetic is checked, not wrapping).
// RUN: %python -c "import sys; t = open(sys.argv[1]).read(); print(t.replace('it += 1;', 'it += 1' + ' + 0' * 300 + ';'))" %S/barrier_array_tma_epilogue.cake > %t.cake
// RUN: grep -c ' + 0 + 0' %t.cake | grep -qx 2
// RUN: %cakec --verify-only -D BN=128 -D S=4 %t.cake 2>&1 | %FileCheck %s
// CHECK: verified: 83 obligations proven
// RUN: %python -c "import sys; t = open(sys.argv[1]).read(); print(t.replace('it += 1;', 'it += 4294967296 * 4294967296 * 4294967296;', 1))" %S/barrier_array_tma_epilogue.cake > %t.ovf.cake
// RUN: %expect-exit 1 %cakec --verify-only -D BN=128 -D S=4 %t.ovf.cake 2>&1 | %FileCheck %s --check-prefix=OVF
// OVF: error: {{.*}}its increment is not a non-zero compile-time constant
target sm_80;
