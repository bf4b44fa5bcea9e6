// Diagnostics in colour: --color=always colours them (bold location, red "error:", green caret); never and
// auto off a terminal (lit's pipes) do not, and NO_COLOR does not change --color=always.
// RUN: %expect-exit 1 %cakec %s --color=always 2>&1 | %FileCheck %s --check-prefix=ALWAYS
// ALWAYS: {{.\[1m.*color.cake:11:50: .\[0m.\[1;31merror: .\[0m.\[1muse of undeclared name 'y' \[E0301\]}}
// ALWAYS: {{.\[1;32m\^.\[0m}}
// RUN: env NO_COLOR=1 %expect-exit 1 %cakec %s --color=always 2>&1 | %FileCheck %s --check-prefix=ALWAYS
// RUN: %expect-exit 1 %cakec %s --color=never 2>&1 | %FileCheck %s --check-prefix=PLAIN
// RUN: %expect-exit 1 %cakec %s 2>&1 | %FileCheck %s --check-prefix=PLAIN
// PLAIN: {{^.*color.cake:11:50: error: use of undeclared name 'y' \[E0301\]$}}
target sm_80;
kernel k(X: f32[N]) grid(1) threads(32) { X[0] = y; }
