// cakec library build: an entry whose reachability the solver cannot settle in its limit (a non-linear guard:
// E0860 at 50 ms) is proven reachable by a concrete shape - M = 1, N = 8 from the grid of sizes the check
// dispatches through the guards first, confirmed on the solver's own query - so the table is checked.  An
// entry no grid shape reaches still goes to the solver (unproven.json, E0860_library_unproven.cake).
// RUN: rm -rf %t && %cakec library build %S/Inputs/witness.json -o %t --verify-timeout 50 2>&1 | %FileCheck %s
// CHECK: cakec library: rowscale_lib: 1 variants, 2 dispatch entries, table checked
target sm_80;
