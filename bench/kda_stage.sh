#!/usr/bin/env bash
# bench/kda_stage.sh DEST: lays out what bench/kda_device_run.sh needs under DEST (a git-ignored folder of the
# checkout that the device tool sends, e.g. /work/main/bench/out/kda): stage/ (this branch's bench/,
# runtime/python/cakeir, machines/) and cubins/ (bench/kda_build.sh, run here first).  peers/ (FlashKDA with
# cutlass/, fla) and cache/ are laid by hand: see bench/results/2026-12-03-kda/README.md.
set -eu
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${1:?usage: kda_stage.sh DEST}
cubins_src=$(cd "$repo/bench/out/kda/cubins" && pwd -P)
mkdir -p "$dest"
cubins_dst=$(cd "$dest" && pwd -P)/cubins
rm -rf "$dest/stage"
mkdir -p "$dest/stage/bench" "$dest/stage/runtime/python" "$dest/stage/machines"
# bench/ without its outputs (DEST may itself lie under bench/out) and results
tar -C "$repo/bench" --exclude=./out --exclude=./results -cf - . | tar -C "$dest/stage/bench" -xf -
cp -r "$repo/runtime/python/cakeir" "$dest/stage/runtime/python/"
cp "$repo"/machines/*.json "$dest/stage/machines/"
if [ "$cubins_src" != "$cubins_dst" ]; then
  rm -rf "$cubins_dst"
  cp -r "$cubins_src" "$cubins_dst"
fi
du -sh "$dest"/*
