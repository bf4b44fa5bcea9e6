#!/usr/bin/env bash
# bench/search_build.sh: packs what bench/search_gemm.py needs on the device machine into bench/out/search/
# (development machine, no GPU needed).  The search runs cakec on the device for every candidate (verify,
# estimate, compile), so cakec travels with the libraries it links that the device may lack:
#   bin/cakec                 the built cakec ($CAKEC, default build/cakec), stripped
#   lib/libz3.so.4, lib/libstdc++.so.6, lib/libgcc_s.so.1, lib/libcrypto.so.3
#                             cakec's shared libraries as ldd resolves them here (search_gemm.py puts lib/ on
#                             cakec's LD_LIBRARY_PATH only; the device's glibc must be as new as this one's)
#   lib/libcake_runtime.so    the runtime, compiled from runtime/src with libstdc++ and libgcc linked in (and
#                             libcrypto, packed above, for the cubin SHA-256)
#   build_info.json           git commit, dirty flag, cakec --version
# ptxas is not packed (37 MB): search_gemm.py uses the device's ($CUDA_HOME/bin, PATH) or the one that
# ships with triton.  bench/out is git-ignored: carry bench/out/search (about 35 MB; docs/harness.md).
# Usage: bench/search_build.sh          Env: CAKEC (default <repo>/build/cakec), CXX (default c++)
set -eu -o pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cakec=${CAKEC:-$repo/build/cakec}
out=$repo/bench/out/search
[ -x "$cakec" ] || { echo "search_build.sh: no cakec at $cakec (ninja -C build cakec)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
cp "$cakec" "$out/bin/cakec"
strip "$out/bin/cakec"
for name in libz3.so libstdc++.so libgcc_s.so libcrypto.so; do
  path=$(ldd "$cakec" | awk -v n="$name" 'index($1, n) == 1 {print $3}')
  [ -n "$path" ] && cp -L "$path" "$out/lib/"
done
"${CXX:-c++}" -std=c++20 -O2 -shared -fPIC -fvisibility=hidden -static-libstdc++ -static-libgcc \
  -I"$repo/runtime/include" -I"$repo/runtime/src" "$repo"/runtime/src/*.cpp -o "$out/lib/libcake_runtime.so" -ldl -lpthread -lcrypto
commit=$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)
dirty=$([ -n "$(git -C "$repo" status --porcelain 2>/dev/null)" ] && echo true || echo false)
version=$("$cakec" --version | head -1)
printf '{"commit": "%s", "dirty": %s, "cakec": "%s"}\n' "$commit" "$dirty" "$version" > "$out/build_info.json"
du -sh "$out"
