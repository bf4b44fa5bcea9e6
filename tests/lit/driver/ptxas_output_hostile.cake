// ptxas output is parsed without a backtracking regex and without exceptions: a kernel name of 30,000
// characters (libstdc++'s std::regex recursed per character: exit 139), ptxas lines with numbers past 64
// bits (std::stoul threw: exit 4) and a 300,000-character error line are handled, what is quoted is
// capped, and ptxas's temporary folder is removed in every case.
// RUN: rm -rf %t.dir && mkdir -p %t.dir/tmp
// RUN: %python -c "print('target sm_80;\nkernel ' + 'k' * 30000 + '(X: f32[N]) grid(1) threads(32) {\n  X[0] = 1.0;\n}')" > %t.dir/long.cake
// RUN: env TMPDIR=%t.dir/tmp %cakec %t.dir/long.cake -o %t.dir/long.cubin -v 2>&1 | %FileCheck %s --check-prefix=LONG
// LONG: cakec: kkkkkkkkkk{{k*}}... (29488 more bytes) (sm_80): {{[0-9]+}} registers
// RUN: test -s %t.dir/long.cubin
// RUN: env TMPDIR=%t.dir/tmp FAKE_PTXAS_MODE=bignum %expect-exit 1 %cakec %s -o %t.dir/k.cubin --ptxas %S/Inputs/hostile_ptxas.sh 2>&1 | %FileCheck %s --check-prefix=BIGNUM
// BIGNUM: cakec: error: ptxas rejected the generated PTX: fake error on a line past 64 bits [E0705]
// RUN: env TMPDIR=%t.dir/tmp FAKE_PTXAS_MODE=bigreport %cakec %s -o %t.dir/k.cubin -v --ptxas %S/Inputs/hostile_ptxas.sh 2>&1 | %FileCheck %s --check-prefix=BIGREPORT
// BIGREPORT: cakec: k (sm_80): 4294967295 registers, 4294967295 bytes static smem, 4294967295 bytes stack
// RUN: env TMPDIR=%t.dir/tmp FAKE_PTXAS_MODE=longline %expect-exit 1 %cakec %s -o %t.dir/k.cubin --ptxas %S/Inputs/hostile_ptxas.sh 2> %t.dir/err
// RUN: %FileCheck %s --check-prefix=LONGLINE < %t.dir/err
// LONGLINE: error: ptxas rejected the generated PTX: xxxxxxxxxx{{x*}}... (299488 more bytes) [E0705]
// RUN: test $(wc -c < %t.dir/err) -lt 5000
// Nothing is left in $TMPDIR.
// RUN: ls -A %t.dir/tmp | count 0
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
