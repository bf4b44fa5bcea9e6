// -D NAME=VALUE reaches sema: it overrides the compile-time parameter's default (here checked through
// threads(T), which must be a multiple of 32), the last -D for a name wins, and a name no kernel declares
// is E0323.
// RUN: %cakec %s --verify-only 2>&1 | %FileCheck %s --check-prefix=DEFAULT
// DEFAULT: obligations proven for sm_80
// RUN: %expect-exit 1 %cakec %s --verify-only -D T=33 2>&1 | %FileCheck %s --check-prefix=BAD
// BAD: defines.cake:[[#@LINE+6]]:{{[0-9]+}}: error: {{.*}}[E0408]
// RUN: %cakec %s --verify-only -D T=33 -DT=64 2>&1 | %FileCheck %s --check-prefix=DEFAULT
// RUN: %cakec %s --verify-only -D T=0x40 2>&1 | %FileCheck %s --check-prefix=DEFAULT
// RUN: %expect-exit 1 %cakec %s --verify-only -D NOPE=1 2>&1 | %FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: -D NOPE: kernel 'k' has no compile-time parameter 'NOPE' [E0323]
target sm_80;
kernel k<T = 128>(A: f32[N]) grid(1) threads(T) {
}
