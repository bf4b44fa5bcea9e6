#!/usr/bin/env bash
# bench/kda_stage.sh DEST: lays out what bench/kda_device_run.sh needs under DEST (a git-ignored folder of the
# checkout that the device tool sends, e.g. /work/main/bench/out/kda): stage/ (this branch's bench/,
# runtime/python/cakeir, machines/) and cubins/ (bench/kda_build.sh, run here first).  peers/ (FlashKDA with
# cutlass/, fla) and cache/ are laid by hand: see bench/results/2026-12-03-kda/README.md.
set -eu
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${1:?usage: kda_stage.sh DEST}
rm -rf "$dest/stage" "$dest/cubins"
mkdir -p "$dest/stage/runtime/python" "$dest/stage/machines"
cp -r "$repo/bench" "$dest/stage/bench"
rm -rf "$dest/stage/bench/out" "$dest/stage/bench/results"
cp -r "$repo/runtime/python/cakeir" "$dest/stage/runtime/python/"
cp "$repo"/machines/*.json "$dest/stage/machines/"
cp -r "$repo/bench/out/kda/cubins" "$dest/cubins"
du -sh "$dest"/*
