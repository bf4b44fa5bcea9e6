// samples/hopper_gemm_persistent.cake verifies clean: the k-tile counter `it` (counted across the tiles of the
// persistent tile loop) is an induction counter, the tile loop is enumerated by its tile count, and every
// obligation (arrivals incl. the cross-CTA releases, expect_tx incl. multicast, parities, laps, ring overwrite /
// read-before-fill, deadlock incl. CTAs with no tile) is proven: no diagnostic, exit 0.
// RUN: %cakec --verify-only --verify-diagnostics %samples/hopper_gemm_persistent.cake
// RUN: %cakec --verify-only %samples/hopper_gemm_persistent.cake 2>&1 | %FileCheck %s
// CHECK: verified: {{[0-9]+}} obligations proven
// The canonical IR (--emit=ir) of the sample passes the front end and the verifier again.
// RUN: %cakec --no-verify --emit=ir %samples/hopper_gemm_persistent.cake -o %t.cake
// RUN: %cakec --verify-only --verify-diagnostics %t.cake
