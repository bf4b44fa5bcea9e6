// Command-line misuse exits with status 2 and a message naming the problem.  The input (this file) is
// valid, so any other exit status would be wrong.
// RUN: %expect-exit 2 %cakec 2>&1 | %FileCheck %s --check-prefix=NOINPUT
// NOINPUT: cakec: error: no input file
// NOINPUT-NEXT: Run with --help for more information.
// RUN: %expect-exit 2 %cakec %s --no-such-option 2>&1 | %FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: cakec: error: {{.*}}--no-such-option
// UNKNOWN-NOT: hint:
// A misspelt option gets the closest one as a hint, in text and in JSON.
// RUN: %expect-exit 2 %cakec %s --verfy-only 2>&1 | %FileCheck %s --check-prefix=DIDYOUMEAN
// DIDYOUMEAN: cakec: error: {{.*}}--verfy-only
// DIDYOUMEAN-NEXT: hint: did you mean '--verify-only'?
// RUN: %expect-exit 2 %cakec %s --diagnostics-format=json --colr=never 2>/dev/null | %FileCheck %s --check-prefix=DIDYOUMEAN-JSON
// DIDYOUMEAN-JSON: "hint":"did you mean '--color'?"
// RUN: %expect-exit 2 %cakec %s --arch sm_99 2>&1 | %FileCheck %s --check-prefix=ARCH
// ARCH: cakec: error: --arch: unknown architecture 'sm_99' (known: sm_80 sm_86 sm_89 sm_90 sm_90a sm_100a sm_120)
// RUN: %expect-exit 2 %cakec %s --emit=llvm 2>&1 | %FileCheck %s --check-prefix=EMIT
// EMIT: cakec: error: --emit: llvm not in {ir,ptx,cubin}
// RUN: %expect-exit 2 %cakec %s --verify-only --estimate 2>&1 | %FileCheck %s --check-prefix=CONFLICT
// CONFLICT: cakec: error: --verify-only excludes --estimate
// RUN: %expect-exit 2 %cakec %s --verify-only -o %t.out 2>&1 | %FileCheck %s --check-prefix=CONFLICT-O
// CONFLICT-O: cakec: error: --output excludes --verify-only
// RUN: %expect-exit 2 %cakec %s --estimate --emit=ptx 2>&1 | %FileCheck %s --check-prefix=CONFLICT-E
// CONFLICT-E: cakec: error: --emit excludes --estimate
// RUN: %expect-exit 2 %cakec %s --shape M=1 2>&1 | %FileCheck %s --check-prefix=SHAPE-NEEDS
// SHAPE-NEEDS: cakec: error: --shape requires --estimate
// RUN: %expect-exit 2 %cakec %s --estimate --shape M=1,N 2>&1 | %FileCheck %s --check-prefix=SHAPE-BAD
// SHAPE-BAD: cakec: error: malformed --shape 'M=1,N': expected NAME=INTEGER[,NAME=INTEGER...]
// RUN: %expect-exit 2 %cakec %s --diagnostics-format=xml 2>&1 | %FileCheck %s --check-prefix=FORMAT
// FORMAT: cakec: error: --diagnostics-format: xml not in {text,json}
// RUN: %expect-exit 2 %cakec %s --error-limit=-1 2>&1 | %FileCheck %s --check-prefix=LIMIT
// LIMIT: cakec: error: --error-limit: Value -1 not in range
// RUN: %expect-exit 2 %cakec %s --no-verify --verify-timeout=10 2>&1 | %FileCheck %s --check-prefix=NOVERIFY
// NOVERIFY: cakec: error: {{.*}}excludes
// RUN: %expect-exit 2 %cakec %s --explain E0301 2>&1 | %FileCheck %s --check-prefix=EXPLAIN-FILE
// EXPLAIN-FILE: cakec: error: {{.*}}excludes
// JSON diagnostics and --emit=ir both want stdout: refused unless -o is given.
// RUN: %expect-exit 2 %cakec %s --emit=ir --diagnostics-format=json 2>&1 | %FileCheck %s --check-prefix=JSON-STDOUT
// JSON-STDOUT: cakec: error: --diagnostics-format=json writes diagnostics to stdout; give the output a file with -o FILE
// RUN: %expect-exit 2 %cakec %s --emit=ptx -o - --diagnostics-format=json 2>&1 | %FileCheck %s --check-prefix=JSON-STDOUT
// RUN: %cakec %s --emit=ir --diagnostics-format=json -o %t.ir.cake | %FileCheck %s --check-prefix=JSON-FILE
// JSON-FILE: []
// Nothing is written on a usage error.
// RUN: rm -f %t.never.cake && %expect-exit 2 %cakec %s --emit=ir --arch sm_1 -o %t.never.cake 2>/dev/null
// RUN: test ! -e %t.never.cake
target sm_80;
