// The 64 MiB input limit (E0107) holds for every kind of input, not only regular files: standard input, a
// device (/dev/zero) and a FIFO are refused as soon as they pass it, without reading them to the end (old
// cakec read /dev/zero until bad_alloc).  The same holds for --machine and for `cakec calibrate`'s inputs.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %expect-exit 1 %cakec /dev/zero --verify-only 2>&1 | %FileCheck %s
// CHECK: cakec: error: source file is more than 67108864 bytes; the limit is 67108864 [E0107]
// RUN: %expect-exit 1 %cakec - --verify-only < /dev/zero 2>&1 | %FileCheck %s
// RUN: mkfifo %t.dir/fifo && (head -c 70000000 /dev/zero > %t.dir/fifo &) && %expect-exit 1 %cakec %t.dir/fifo --verify-only 2>&1 | %FileCheck %s
// RUN: %expect-exit 1 %cakec %s --estimate --shape N=1024 --machine /dev/zero 2>&1 | %FileCheck %s --check-prefix=MACHINE
// MACHINE: cakec: error: cannot use machine description '/dev/zero': the file is larger than 16 MiB [E0805]
// RUN: %expect-exit 3 %cakec calibrate /dev/zero -o %t.dir/out.json 2>&1 | %FileCheck %s --check-prefix=CALIBRATE
// CALIBRATE: cakec: error: cannot read '/dev/zero': the file is larger than 64 MiB [E0501]
// RUN: echo '{"format": "cake-measurements", "version": 1, "measurements": [{"kernel_file": "/dev/zero", "shape": {"N": 1}, "ms": 1.0, "label": "zero"}]}' > %t.dir/m.json
// RUN: %expect-exit 1 %cakec calibrate %t.dir/m.json -o %t.dir/out.json | %FileCheck %s --check-prefix=KERNEL-FILE
// KERNEL-FILE: skip  zero: cannot read /dev/zero (the file is larger than 64 MiB)
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
