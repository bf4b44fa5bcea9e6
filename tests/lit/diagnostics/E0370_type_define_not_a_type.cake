// E0370: -D for a type parameter must name a scalar type; an integer, a vector type or an unknown name is
// reported at the parameter's declaration, with a hint.
// RUN: %cakec --verify-only --verify-diagnostics -D T=7 %s
// RUN: %expect-exit 1 %cakec --verify-only -D T=7 %s 2>&1 | %FileCheck %s --check-prefix=INT
// INT: 15:10: error: -D T=7: 'T' is a type parameter of kernel 'k'; an integer is not a type [E0370]
// INT: hint: give a scalar type, e.g. -D T=f16
// RUN: %expect-exit 1 %cakec --verify-only -D T=bf16x8 %s 2>&1 | %FileCheck %s --check-prefix=VEC
// VEC: error: -D T=bf16x8: 'T' is a type parameter of kernel 'k'; 'bf16x8' is a vector type; a type parameter names a scalar type [E0370]
// RUN: %expect-exit 1 %cakec --verify-only -D T=bf17 %s 2>&1 | %FileCheck %s --check-prefix=TYPO
// TYPO: error: -D T=bf17: 'T' is a type parameter of kernel 'k'; 'bf17' is not a type [E0370]
// TYPO: hint: did you mean -D T=bf16?
// The last -D for a name wins: an integer followed by a type is fine.
// RUN: %cakec --verify-only -D T=7 -D T=f16 %s
target sm_80;
kernel k<T: type = bf16>(X: T[N]) grid(1) threads(32) {   // expected-error E0370 {{-D T=7: 'T' is a type parameter of kernel 'k'; an integer is not a type}}
}
