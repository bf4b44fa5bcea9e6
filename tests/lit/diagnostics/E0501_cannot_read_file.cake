// E0501: an input that cannot be read is an environment failure: exit code 3.
// RUN: rm -rf %t.missing.cake
// RUN: %expect-exit 3 %cakec %t.missing.cake --verify-only 2>&1 | %FileCheck %s --check-prefix=MISSING
// MISSING: cakec: error: cannot read '{{.*}}.missing.cake': No such file or directory [E0501]
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %expect-exit 3 %cakec %t.dir --verify-only 2>&1 | %FileCheck %s --check-prefix=DIR
// DIR: cakec: error: cannot read '{{.*}}.dir': it is a directory [E0501]
// The environment failure wins over --verify-diagnostics (there is no file to take expectations from).
// RUN: %expect-exit 3 %cakec %t.missing.cake --verify-only --verify-diagnostics 2>&1 | %FileCheck %s --check-prefix=MISSING
target sm_80;
