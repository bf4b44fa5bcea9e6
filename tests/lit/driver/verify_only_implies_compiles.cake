// Every .cake file under tests/ and samples/ that passes --verify-only also compiles (with ptxas when it is
// installed, else to PTX): the in-memory code generation of --verify-only and the real compile agree.
// Files that verify but are meant to fail the compile say so with a '// verify-passes-compile-fails:' line.
// RUN: %python %S/../../../utils/check-verify-implies-compiles.py %cakec %S/../../.. | %FileCheck %s
// CHECK-NOT: does not compile
// CHECK-NOT: but it compiles
// CHECK: {{[0-9]+}} files, {{[0-9]+}} configurations verified, {{.*}}, 0 problems
target sm_80;
