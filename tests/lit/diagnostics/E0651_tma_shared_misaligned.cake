// RUN: %cakec --verify-only --verify-diagnostics %s
// The staged TMA destination uses the default 16-byte alignment and sits after a small array: the tile starts
// at byte 16, which cp.async.bulk.tensor rejects (it needs 128).
target sm_90;
kernel k<BM = 64, BN = 64>(Out: bf16[M, N] tma(box=[BM, BN]) align(16))
  requires(M % BM == 0, N % 8 == 0) grid(cdiv(N, BN), M / BM) threads(128)
{
  // expected-warning@+1 E0375 {{shared array 'flags' is declared but never used}}
  shared flags: i32[4];
  // expected-note@+1 {{'tile' starts at byte 16 and its stages are 8192 bytes apart (stage 0)}}
  shared tile: bf16[2][BM, BN];
  if tid.x == 0 {
    // expected-error@+1 E0651 {{'tma.store' moves shared tile 'tile' at byte offset 16, which is not 1}}
    tma.store Out[i32(block.y) * BM, i32(block.x) * BN] <- tile[1];
    tma.store.commit;
    tma.store.wait 0;
  }
}
