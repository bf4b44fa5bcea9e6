#!/bin/sh
# Builds the cubins that bench/gemm_softmax_bench.py measures: samples/ampere_gemm.cake and
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
  "$CAKEC" samples/ampere_gemm.cake --arch "$ARCH" $defs -o "$OUT/$name.cubin" -v 2>&1 | grep -v "^cakec: ampere_gemm: " | sed "s/^/[$name] /"
  printf '%s{"name": "%s", "defines": "%s"}\n' "$sep" "$name" "$*" >> "$json"
  sep=","
}
gemm g128x256x32s4
gemm g128x256x64s3 BK=64 S=3
gemm g128x256x64s4 BK=64 S=4
gemm g128x256x32s5 S=5
gemm g256x128x32s4 BM=256 BN=128
gemm g256x128x64s3 BM=256 BN=128 BK=64 S=3
gemm g128x128x32s4w4 BN=128 S=4
gemm g128x128x32s4w8 BN=128 WN=32 S=4
gemm g128x256x32s4w16 WN=32
echo '], "softmax": [' >> "$json"
sep=""
softmax() {   # name WARPS ROW_WARPS VPT
  "$CAKEC" samples/row_softmax.cake --arch "$ARCH" -D WARPS=$2 -D ROW_WARPS=$3 -D VPT=$4 -o "$OUT/$1.cubin" -v 2>&1 \
    | grep "registers" | sed "s/^/[$1] /"
  printf '%s{"name": "%s", "warps": %s, "row_warps": %s, "vpt": %s}\n' "$sep" "$1" "$2" "$3" "$4" >> "$json"
  sep=","
}
softmax s_w4_r1_v4 4 1 4
softmax s_w8_r1_v4 8 1 4
softmax s_w4_r1_v8 4 1 8
softmax s_w4_r2_v4 4 2 4
softmax s_w4_r4_v2 4 4 2
softmax s_w4_r4_v4 4 4 4
softmax s_w8_r8_v2 8 8 2
softmax s_w8_r8_v4 8 8 4
softmax s_w16_r16_v2 16 16 2
softmax s_w16_r16_v4 16 16 4
echo ']}' >> "$json"
