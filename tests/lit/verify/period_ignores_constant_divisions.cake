// The period of the synchronisation protocol comes from divisions, remainders and masks of loop variables
// and counters only: a constant quotient inside a stage index (`a[s * (BK / 64)]`, as in kernels that
// split a tile into 64-wide column blocks) does not make the period 64.  With P = 64 the enumeration of
// persistent_wrong_step.cake grew past 4956 combinations and the simulation of the 130 trip counts ran
// for minutes; with the period of `it % S` the diagnostics are exactly those of that test.
// RUN: sed -e 's/tma.load a\[s\] <-/tma.load a[s * (BK \/ 64)] <-/' %S/persistent_wrong_step.cake > %t.cake
// RUN: grep -q 'a\[s \* (BK / 64)\]' %t.cake
// RUN: %cakec --verify-only --verify-diagnostics %t.cake
