// E0857: an entry whose guard only accepts shapes an earlier entry takes can never be chosen.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/shadowed.json -o %t 2>&1 | %FileCheck %s
// RUN: not test -e %t/library.json
// CHECK: shadowed.json:12:15: error: dispatch entry 1 ('v8') can never be chosen: every shape its guard accepts is taken by an earlier entry [E0857]
// CHECK: shadowed.json:11:15: note: entry 0 ('v4') accepts M = {{[0-9]+}}, N = {{[0-9]+}} first
target sm_80;
