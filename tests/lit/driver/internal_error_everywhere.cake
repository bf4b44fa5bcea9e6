// Every exception is reported as an internal compiler error with exit code 4, never std::terminate
// (exit 134): in `cakec calibrate`, and in the worker threads of --sweep -j (here forced by the hidden
// test hook, which under --sweep fires inside each variant's analysis).
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %expect-exit 4 %cakec %s --estimate --shape N=1024 --sweep T=32,64,128,256 -j 3 --debug-force-internal-error 2>&1 | %FileCheck %s --check-prefix=SWEEP
// SWEEP: internal compiler error: at {{.*}}EstimateCommand.cpp:{{[0-9]+}}: forced by --debug-force-internal-error in a sweep variant
// SWEEP-NEXT: cakec {{.*}} failed on '{{.*}}internal_error_everywhere.cake'; this is a bug in cakec, not in the input
// RUN: echo '{"format": "cake-measurements", "version": 1, "measurements": []}' > %t.dir/m.json
// RUN: %expect-exit 4 %cakec calibrate %t.dir/m.json -o %t.dir/out.json --debug-force-internal-error 2>&1 | %FileCheck %s --check-prefix=CALIBRATE
// CALIBRATE: internal compiler error: at {{.*}}CalibrateCommand.cpp:{{[0-9]+}}: forced by --debug-force-internal-error
// CALIBRATE-NEXT: cakec {{.*}} failed on 'calibrate'; this is a bug in cakec, not in the input
// A kernel_file name the file system rejects (ENAMETOOLONG: std::filesystem::exists threw) is a skipped
// measurement, not an exception.
// RUN: %python -c "import json; print(json.dumps({'format': 'cake-measurements', 'version': 1, 'measurements': [{'kernel_file': 'x' * 5000, 'shape': {'N': 1}, 'ms': 1.0, 'label': 'long'}]}))" > %t.dir/long.json
// RUN: %expect-exit 1 %cakec calibrate %t.dir/long.json -o %t.dir/out.json > %t.dir/stdout 2> %t.dir/stderr
// RUN: %FileCheck %s --check-prefix=LONG < %t.dir/stdout
// LONG: skip  long: cannot read xxxxxxxx
// RUN: %FileCheck %s --check-prefix=LONG-ERR < %t.dir/stderr
// LONG-ERR: error: calibration input '{{.*}}long.json': no measurement could be estimated [E0810]
target sm_80;

kernel k<T = 32>(X: f32[N]) grid(cdiv(N, T)) threads(T) {
  let i = i32(block.x) * T + i32(tid.x);
  if i < N {
    X[i] = X[i] + 1.0;
  }
}
