// A tile loop that runs for no shape (persistent_counter_twice_in_producer.cake with both tile loops starting
// at 0x7fffffff, past every tile count its requires(...) allow) is simulated at tile count 0 alone: one shape
// query finds that no shape runs a tile, instead of simulating the ~2P + 2 tile counts of the enumeration (288
// expansions) for tile counts that never occur.  The kernel then verifies: its wrong counter is never reached.
// RUN: sed -e 's/for p in first\.\.pairs/for p in 0x7fffffff..pairs/' %S/persistent_counter_twice_in_producer.cake > %t.cake
// RUN: CAKE_VERIFY_TIMES=1 %cakec --verify-only %t.cake 2>&1 | %FileCheck %s
// CHECK: sync analysis: period 8 (trip counts: 8, up to 19; tile counts up to 19), 1 trip counts, 1 tile-loop groups, {{[0-9]+}} shape queries, 19 expansions simulated
// CHECK: verified: {{[0-9]+}} obligations proven
