// samples/blackwell_kmeans_assign.cake (sm_100a; never run on hardware) passes the front end and the verifier with zero
// diagnostics: --verify-diagnostics with no expectations in the sample fails on any error, warning or note.
// RUN: %cakec --verify-only --verify-diagnostics %samples/blackwell_kmeans_assign.cake
// The canonical IR (--emit=ir) of the sample passes again (tmem declarations print back).
// RUN: %cakec --emit=ir %samples/blackwell_kmeans_assign.cake -o %t.cake
// RUN: %cakec --verify-only --verify-diagnostics %t.cake
// It assembles for sm_100a and estimates on the b200 description.
// RUN: %cakec %samples/blackwell_kmeans_assign.cake -o %t.cubin && test -s %t.cubin
// RUN: %cakec --estimate --machine b200 --shape N=65536,K=1000,KP=1024,D=64 %samples/blackwell_kmeans_assign.cake | %FileCheck %s
// CHECK: b200
