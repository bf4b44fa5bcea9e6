// E0852: the table must end in exactly one fallback: not before other entries, not missing.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/fallback_placement.json -o %t 2>&1 | %FileCheck %s
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/no_fallback.json -o %t 2>&1 | %FileCheck %s --check-prefix=MISSING
// CHECK: fallback_placement.json:9:18: error: the fallback is not the last entry: the entries after it can never be chosen [E0852]
// MISSING: no_fallback.json:10:15: error: the dispatch table does not end in a fallback [E0852]
// MISSING: hint: end "dispatch" with {"fallback": true, "variant": NAME}
target sm_80;
