// samples/blackwell_gemm.cake (sm_100a; never run on hardware) passes the front end and the verifier with zero
// diagnostics: --verify-diagnostics with no expectations in the sample fails on any error, warning or note.
// RUN: %cakec --verify-only --verify-diagnostics %samples/blackwell_gemm.cake
// The canonical IR (--emit=ir) of the sample parses and passes sema again (tmem declarations print back);
// its verification is the first RUN line's.
// RUN: %cakec --emit=ir %samples/blackwell_gemm.cake -o %t.cake
// RUN: %cakec --no-verify --emit=ptx -o %t.ptx %t.cake
// It assembles for sm_100a and estimates on the b200 description.
// RUN: %cakec %samples/blackwell_gemm.cake -o %t.cubin && test -s %t.cubin
// RUN: %cakec --estimate --machine b200 --shape M=4096,N=4096,K=4096 %samples/blackwell_gemm.cake | %FileCheck %s
// CHECK: b200
