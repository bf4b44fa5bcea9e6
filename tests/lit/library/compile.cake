// The variant key "compile" names the kernels of the source a variant builds (cakec --kernel): V = 8 suits
// rowscale but not halve (requires V <= 4), so v8 builds rowscale alone; "any" builds both.  A "compile" that
// is not a list of names, or leaves out the variant's "kernel", is malformed.
// RUN: rm -rf %t && %cakec library build %S/Inputs/compile.json -o %t 2>&1 | %FileCheck %s --check-prefix=LOG
// RUN: %FileCheck %s --check-prefix=V8 < %t/v8.cubin.json
// RUN: %FileCheck %s --check-prefix=ANY < %t/any.cubin.json
// LOG: rowscale_lib: 2 variants, 2 dispatch entries, table checked
// V8: "name": "rowscale"
// V8-NOT: "name": "halve"
// ANY-DAG: "name": "rowscale"
// ANY-DAG: "name": "halve"
// RUN: rm -rf %t2 && not %cakec library build %S/Inputs/compile_bad.json -o %t2 2>&1 | %FileCheck %s --check-prefix=BAD
// BAD-DAG: "compile" of 'a' is a non-empty array of kernel names [E0850]
// BAD-DAG: "compile" of 'b' leaves out its "kernel" 'rowscale' [E0850]
// And without "compile", v8's defines break halve (the whole file is built):
// RUN: not %cakec --verify-only -D V=8 %S/Inputs/two_kernels.cake 2>&1 | %FileCheck %s --check-prefix=WHOLE
// RUN: %cakec --verify-only -D V=8 --kernel rowscale %S/Inputs/two_kernels.cake 2>&1 | %FileCheck %s --check-prefix=ONE
// WHOLE: 'V <= 4' is false
// ONE: verified
