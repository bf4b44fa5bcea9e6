#!/bin/sh
# Builds the cubins that bench/perf_gemm_softmax.py measures: samples/ampere_gemm.cake and
# samples/row_softmax.cake under several -D variants, for sm_90 (H100/H200), plus variants.json (the list).
# Usage: bench/build_perf_variants.sh CAKEC OUTDIR        (run from the repository root; ptxas must match the
#        device's CUDA: 13.0 for the H200 machines)
set -eu
CAKEC=$1
OUT=$2
ARCH=${ARCH:-sm_90}
mkdir -p "$OUT"
json="$OUT/variants.json"
echo '{"gemm": [' > "$json"
sep=""
gemm() {   # name, then -D arguments
  name=$1; shift
  defs=""
  for d in "$@"; do defs="$defs -D $d"; done
  # shellcheck disable=SC2086
  "$CAKEC" samples/ampere_gemm.cake --no-verify --arch "$ARCH" $defs -o "$OUT/$name.cubin" -v 2>&1 \
    | grep registers | sed "s/^/[$name] /"
  printf '%s{"name": "%s", "defines": "%s"}\n' "$sep" "$name" "$*" >> "$json"
  sep=","
}
gemm g_default                                   # 128x256x64, 3 stages, 8 warps (fits sm_80)
gemm g_s4 S=4                                    # 4 stages: 204 KB of shared memory (sm_90 only)
gemm g256x128_s4 BM=256 BN=128 S=4
gemm g128x256x32s4 BK=32 S=4
# the sample before this work (commit 2cdefdf: 128x128x32, 4 warps, 3 stages) for comparison; OLD_CAKEC may name a cakec
# built before the current codegen
if git show ${BASE_COMMIT:-2cdefdf}:samples/ampere_gemm.cake > "$OUT/head_ampere_gemm.cake" 2>/dev/null; then
  "$CAKEC" "$OUT/head_ampere_gemm.cake" --no-verify --arch "$ARCH" -o "$OUT/head_sample.cubin" -v 2>&1 | grep registers | sed "s/^/[head_sample] /"
  printf ',{"name": "head_sample", "defines": "BN=128"}\n' >> "$json"
  if [ -n "${OLD_CAKEC:-}" ]; then
    "$OLD_CAKEC" "$OUT/head_ampere_gemm.cake" --arch "$ARCH" -o "$OUT/head_sample_oldcg.cubin" -v 2>&1 | grep registers | sed "s/^/[head_sample_oldcg] /"
    printf ',{"name": "head_sample_oldcg", "defines": "BN=128"}\n' >> "$json"
  fi
fi
echo '], "softmax": [' >> "$json"
sep=""
softmax() {   # name WARPS VPT  (the default variant is verified by the sample tests; here the verifier's
              # solver can time out on large WARPS, so the sweep skips it)
  "$CAKEC" samples/row_softmax.cake --no-verify --arch "$ARCH" -D WARPS=$2 -D VPT=$3 -o "$OUT/$1.cubin" -v 2>&1 \
    | grep "registers" | sed "s/^/[$1] /"
  printf '%s{"name": "%s", "warps": %s, "vpt": %s}\n' "$sep" "$1" "$2" "$3" >> "$json"
  sep=","
}
softmax s_w8_v4 8 4
softmax s_w4_v4 4 4
softmax s_w16_v4 16 4
softmax s_w8_v2 8 2
softmax s_w16_v2 16 2
softmax s_w32_v1 32 1
softmax s_w4_v8 4 8
echo ']}' >> "$json"
