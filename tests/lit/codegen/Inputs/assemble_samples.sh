#!/usr/bin/env bash
# assemble_samples.sh CAKEC SAMPLES_DIR TMP_DIR
# For every sample and every target: when the front end accepts the sample for that target and code
# generation supports all of its constructs (no E0701), `cakec -o x.cubin --arch A` must succeed (PTX ->
# ptxas -> cubin + manifest); a sample whose only errors are the verifier's (E06xx, unproven obligations) is
# assembled with --no-verify.  Targets this ptxas does not know are skipped.  Prints one line per
# (sample, target): "ok", "skip-sema", "skip-hopper" or "FAIL"; exits 1 if any failed.
set -u
cakec=$1 samples=$2 tmp=$3
mkdir -p "$tmp"
ptxas=${CUDA_HOME:+$CUDA_HOME/bin/ptxas}
[ -x "${ptxas:-}" ] || ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
printf '.version 8.0\n.target sm_80\n.address_size 64\n' > "$tmp/probe.ptx"
status=0
for arch in sm_80 sm_86 sm_89 sm_90 sm_90a sm_100a sm_120; do
  sed "s/sm_80/$arch/; s/8\.0/8.7/" "$tmp/probe.ptx" > "$tmp/probe-$arch.ptx"
  if ! "$ptxas" -arch=$arch "$tmp/probe-$arch.ptx" -o "$tmp/probe.cubin" >/dev/null 2>&1; then
    echo "target $arch: unknown to this ptxas, skipped"
    continue
  fi
  for f in "$samples"/*.cake; do
    name=$(basename "$f" .cake)
    flags=()
    if ! vlog=$("$cakec" --verify-only --arch $arch "$f" 2>&1); then
      # Only the verifier's obligations (E06xx) unproven: still assemble it (codegen + ptxas are tested here).
      if echo "$vlog" | grep 'error: ' | grep -qv '\[E06[0-9][0-9]\]'; then
        echo "$name $arch: skip-sema"
        continue
      fi
      flags=(--no-verify)
    fi
    out=$("$cakec" "${flags[@]}" --arch $arch "$f" -o "$tmp/$name-$arch.cubin" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] && echo "$out" | grep -q 'E0701'; then
      echo "$name $arch: skip-hopper"
    elif [ $rc -ne 0 ] || [ ! -s "$tmp/$name-$arch.cubin" ] || [ ! -s "$tmp/$name-$arch.cubin.json" ]; then
      echo "$name $arch: FAIL"
      echo "$out"
      status=1
    else
      echo "$name $arch: ok"
    fi
  done
done
exit $status
