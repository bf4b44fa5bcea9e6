// The front-end benchmark input generator (utils/gen_big_cake.py) must keep producing valid CAKE: the
// generated file verifies clean, and its canonical form (--emit=ir) is a fixed point that verifies too.
// utils/bench-frontend.sh times the same generator at 50,000 lines; this test uses a smaller instance with
// both kernel families (simt_*, pipeline_*) so it stays fast in Debug builds.
//
// RUN: %python %S/../../../utils/gen_big_cake.py --lines 12000 --seed 7 -o %t.cake
// RUN: %cakec %t.cake --verify-only
// RUN: %cakec %t.cake --emit=ir -o %t.canonical.cake
// RUN: %cakec %t.canonical.cake --emit=ir -o %t.canonical2.cake
// RUN: diff %t.canonical.cake %t.canonical2.cake
// RUN: %cakec %t.canonical.cake --verify-only
// RUN: grep -c '^kernel pipeline_' %t.canonical.cake | FileCheck --check-prefix=PIPE %s
// PIPE: {{^[1-9][0-9]*$}}
