// E0907: arguments that do not fit the signature: a file that is not .npy, an unknown scalar, a shape
// variable that is not one.
// RUN: %expect-exit 1 %cakec run %s --inputs %s 2>&1 | %FileCheck %s --check-prefix=NPY
// NPY: E0907_interp_bad_argument.cake:13:10: error: kernel argument 'X': {{.*}}: not a .npy file (no \x93NUMPY magic) [E0907]
// RUN: %expect-exit 1 %cakec run %s --shape N=4 --scalar beta=2 2>&1 | %FileCheck %s --check-prefix=SCALAR
// SCALAR: error: kernel argument 'beta': the kernel has no scalar parameter of this name [E0907]
// RUN: %expect-exit 1 %cakec run %s --shape N=4,Q=1 --scalar alpha=2 2>&1 | %FileCheck %s --check-prefix=SHAPE
// SHAPE: error: kernel argument 'Q': the kernel has no shape variable of this name [E0907]
// RUN: %expect-exit 1 %cakec run %s --shape N=2000000000 --scalar alpha=2 2>&1 | %FileCheck %s --check-prefix=BIG
// BIG: error: kernel argument 'X': the tensor needs more than 1 GiB (the interpreter's limit per tensor); run at a smaller shape [E0907]
target sm_80;

kernel k(X: f32[N], alpha: f32) grid(1) threads(32) {
  if lane < N {
    X[lane] = alpha;
  }
}
