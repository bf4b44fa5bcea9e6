#!/usr/bin/env bash
# setup-and-run.sh: on a fresh Debian machine, install what is missing, build cakec into build/, and run it
# on a sample: the --verify-only verdict, the canonical IR (--emit=ir), the cost model's prediction
# (--estimate) and, where ptxas is installed, the cubin + launch manifest with ptxas's resource report (-v).
# Safe to run again.
#   SAMPLE=samples/other.cake ./utils/setup-and-run.sh   picks another sample
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$CAKE_ROOT"

cake_install_deps || exit $?
cake_say "building build/ (log: build/build.log)"
cake_build build || exit 1

sample="${SAMPLE:-samples/hopper_gemm.cake}"
[ -f "$sample" ] || sample=$(ls samples/*.cake 2>/dev/null | head -n 1)
[ -n "$sample" ] || { echo "error: no sample in samples/" >&2; exit 1; }

cake_say "./build/cakec $sample --verify-only"
./build/cakec "$sample" --verify-only
verify=$?
echo "(exit code $verify)"

cake_say "./build/cakec $sample --emit=ir"
./build/cakec "$sample" --emit=ir
emit=$?
echo "(exit code $emit)"
cake_say "./build/cakec $sample --estimate --shape M=4096,N=4096,K=4096"
./build/cakec "$sample" --estimate --shape M=4096,N=4096,K=4096
estimate=$?
echo "(exit code $estimate)"

out="build/demo/$(basename "$sample" .cake).cubin"
mkdir -p build/demo
cake_say "./build/cakec $sample -o $out -v"
./build/cakec "$sample" -o "$out" -v
compile=$?
echo "(exit code $compile; 3 means ptxas was not found)"
[ "$compile" -eq 0 ] && ls -l "$out" "$out.json"
[ "$verify" -eq 0 ] && [ "$emit" -eq 0 ] && [ "$estimate" -eq 0 ] && { [ "$compile" -eq 0 ] || [ "$compile" -eq 3 ]; }
