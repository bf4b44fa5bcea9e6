// --version prints the version with its git revision, the Z3 and the ptxas in use, and exits 0; --help lists
// the options, the subcommands and the exit codes.
// RUN: %cakec --version | %FileCheck %s --check-prefix=VERSION
// VERSION: {{^}}cakec {{[0-9]+\.[0-9]+\.[0-9]+}} (git {{([0-9a-f]+(-dirty)?|unknown)}})
// VERSION-NEXT: {{^}}Z3 {{[0-9]+\.[0-9]+}}
// VERSION-NEXT: {{^}}ptxas {{(/.*/ptxas [0-9.]+|not found)}}
// RUN: %cakec --help | %FileCheck %s --check-prefix=HELP
// HELP: Usage: cakec [OPTIONS] [FILE]
// HELP-DAG: --arch
// HELP-DAG: --emit
// HELP-DAG: --verify-only
// HELP-DAG: --estimate
// HELP-DAG: --shape
// HELP-DAG: -D,--define
// HELP-DAG: --diagnostics-format
// HELP-DAG: --error-limit
// HELP-DAG: --explain
// HELP-DAG: --verify-diagnostics
// HELP-DAG: --color
// HELP-DAG: --lineinfo
// HELP: cakec calibrate MEASUREMENTS -o MACHINE.json
// HELP: cakec run FILE
// HELP: Exit codes: 0 success, 1 errors in the input
// The test-only hook is hidden.
// RUN: %cakec --help | not grep -q debug-force
target sm_80;
