// E0810: cakec calibrate needs a measurements file in the documented format.
// RUN: echo '{"format": "cake-bench", "version": 1}' > %t.json
// RUN: %expect-exit 1 %cakec calibrate %t.json -o %t.out.json 2>&1 | %FileCheck %s --check-prefix=FORMAT
// FORMAT: error: calibration input '{{.*}}.json': expected "format": "cake-measurements" [E0810]
// RUN: echo '{"format": "cake-measurements", "version": 1, "measurements": [{"kernel_file": "x.cake", "ms": -1}]}' > %t.neg.json
// RUN: %expect-exit 1 %cakec calibrate %t.neg.json -o %t.out.json 2>&1 | %FileCheck %s --check-prefix=NEG
// NEG: error: calibration input '{{.*}}': measurement 0: "ms" must be positive [E0810]
// RUN: test ! -e %t.out.json
target sm_80;
