// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k() threads(256) {
  role load = warpgroup(0) { }
  role math = thread(1) { }    // expected-error E0208 {{expected 'warp', 'warps', 'warpgroup' or 'warpgroups', found 'thread'}}
}
