// The hand-written rule rules/tma_store_fence.json ("all" paths, a reset): a tma.store of a tile written with
// generic stores needs fence.proxy_async after the last write on every path.  The built-in family proves the
// same (E0646); the rule reports it too, as E0625 at the store.  With the fence in place both pass.
// RUN: %expect-exit 1 %cakec %s --verify-only --rules %S/../../../rules/tma_store_fence.json 2>&1 | %FileCheck %s
// CHECK-DAG: rules_tma_store_fence.cake:[[@LINE+20]]:5: error: {{.*}} [E0646]
// CHECK-DAG: rules_tma_store_fence.cake:[[@LINE+19]]:5: error: rule 'fence-before-tma-store' violated: a TMA store reads a tile written through the generic proxy without fence.proxy_async in between (tma.store of 'tile' in the code outside roles: on some path no fence.proxy_async precedes it since the last shared.store or stmatrix) [E0625]
// RUN: sed 's|^  syncthreads;$|  fence.proxy_async;\n  syncthreads;|' %s > %t.fenced.cake
// RUN: %cakec %t.fenced.cake --verify-only --rules %S/../../../rules/tma_store_fence.json 2>&1 | %FileCheck %s --check-prefix=FENCED
// FENCED: verified
// A fence only on one branch is not enough for an "all paths" rule:
// RUN: sed 's|^  syncthreads;$|  if tid.x < 64 { fence.proxy_async; }\n  syncthreads;|' %s > %t.branch.cake
// RUN: %expect-exit 1 %cakec %t.branch.cake --verify-only --rules %S/../../../rules/tma_store_fence.json 2>&1 | %FileCheck %s --check-prefix=BRANCH
// BRANCH: error: rule 'fence-before-tma-store' violated
target sm_90;
kernel k<BM = 64, BN = 64>(Out: bf16[M, N] tma(box=[BM, BN], swizzle=128B) align(16))
  requires(M % BM == 0, N % BN == 0) grid(N / BN, M / BM) threads(128)
{
  shared tile: bf16[BM, BN] swizzle(128B) align(1024);
  let t = i32(tid.x);
  for r in 0..BM / 2 {
    tile[r * 2 + t / 64, t % 64] = bf16(0.0);
  }
  syncthreads;
  if tid.x == 0 {
    tma.store Out[i32(block.y) * BM, i32(block.x) * BN] <- tile;
    tma.store.commit;
    tma.store.wait 0;
  }
}
