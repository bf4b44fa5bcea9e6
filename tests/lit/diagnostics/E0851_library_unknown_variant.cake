// E0851: a dispatch entry names a variant the spec does not declare.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/unknown_variant.json -o %t 2>&1 | %FileCheck %s
// CHECK: unknown_variant.json:8:15: error: no variant named 'v4' in "variants" [E0851]
target sm_80;
