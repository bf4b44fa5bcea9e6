#!/usr/bin/env bash
# Install check: `cmake --install BUILD --prefix TMP`, then a project outside the tree (tests/install/consumer)
# finds the runtime with find_package(CakeRuntime) and runs against it, pkg-config reports the same library,
# and the installed cakec finds its machine descriptions (share/cake/machines) with no environment.
#   tests/install/check_install.sh BUILD_DIR WORK_DIR [CMAKE_ARG...]   (extra arguments for the consumer's configure)
set -euo pipefail
build="$1"
work="$2"
shift 2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
cmake -S "$here/consumer" -B "$work/consumer" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" "$@" >/dev/null
cmake --build "$work/consumer" >/dev/null
out="$(LD_LIBRARY_PATH="$prefix/lib" "$work/consumer/consumer")"
echo "$out"
grep -q "^runtime .* abi [0-9]" <<<"$out"
grep -qx "cakec $prefix/bin/cakec" <<<"$out"
grep -qx "machines $prefix/share/cake/machines" <<<"$out"
if command -v pkg-config >/dev/null 2>&1; then
  libs="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs cake_runtime)"
  echo "pkg-config: $libs"
  libdir="$(sed -n 's/^-L\([^ ]*\) -lcake_runtime *$/\1/p' <<<"$libs")"
  [ -n "$libdir" ] && [ "$(realpath "$libdir")" = "$(realpath "$prefix/lib")" ]
fi
# The installed cakec estimates with the installed h200 description (the default for sm_90a).
printf 'target sm_90a;\nkernel k(X: f32[N]) grid(cdiv(N, 256)) threads(256) {\n  let i = i32(block.x) * 256 + i32(tid.x);\n  if i < N {\n    X[i] = 1.0;\n  }\n}\n' >"$work/k.cake"
env -u CAKE_MACHINES_DIR "$prefix/bin/cakec" "$work/k.cake" --estimate --shape N=4096 | grep -q h200
echo "install check: ok"
