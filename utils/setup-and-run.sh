#!/usr/bin/env bash
# setup-and-run.sh: on a fresh Debian machine, install what is missing, build cakec into build/, and run it
# on a sample: the --verify-only verdict, then the canonical IR (--emit=ir).  Safe to run again.
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
[ "$verify" -eq 0 ] && [ "$emit" -eq 0 ]
