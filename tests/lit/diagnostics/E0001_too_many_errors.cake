// E0001: after --error-limit errors (default 20) the next error becomes one fatal E0001 and cakec stops
// reporting.  The inputs are generated: each line is a comment with an invalid UTF-8 byte (E0102), which
// does not disturb parsing, so every error is independent.
// RUN: %python -c 'import sys; sys.stdout.buffer.write(b"target sm_80;\n// expected-error@* E0001 {{too many errors emitted (3); stopping now}}\n" + b"// \xff expected-error E0102 {{invalid UTF-8}}\n" * 3 + b"// \xff\n" * 5)' > %t.limit3.cake
// RUN: %cakec %t.limit3.cake --verify-only --verify-diagnostics --error-limit=3
// Without --verify-diagnostics the default limit is 20: 20 errors, then the fatal one.
// RUN: %python -c 'import sys; sys.stdout.buffer.write(b"target sm_80;\n" + b"// \xff\n" * 30)' > %t.many.cake
// RUN: %expect-exit 1 %cakec %t.many.cake --verify-only 2> %t.err
// RUN: grep -c 'error: invalid UTF-8 byte sequence \[E0102\]' %t.err | grep -qx 20
// RUN: %FileCheck %s < %t.err
// CHECK: cakec: fatal error: too many errors emitted (20); stopping now [E0001]
// --error-limit=0 lifts the limit.
// RUN: %expect-exit 1 %cakec %t.many.cake --verify-only --error-limit=0 2>&1 | grep -c E0102 | grep -qx 30
// Under --verify-diagnostics there is no limit unless one is given: all 30 are expected.
// RUN: %python -c 'import sys; sys.stdout.buffer.write(b"target sm_80;\n" + b"// \xff expected-error E0102 {{invalid UTF-8}}\n" * 30)' > %t.all.cake
// RUN: %cakec %t.all.cake --verify-only --verify-diagnostics
target sm_80;
