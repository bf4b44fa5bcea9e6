#!/bin/sh
# Builds the cubins that bench/perf_gemm_softmax.py measures: samples/ampere_gemm.cake and
# samples/row_softmax.cake under several -D variants, for sm_90 (H100/H200), plus variants.json (the list).
# Usage: bench/build_perf_variants.sh CAKEC OUTDIR        (run from the repository root; ptxas must match the
#        device's CUDA: 13.0 for the H200 machines).  Build into bench/out/ampere (bench/out is what the
#        device run carries; bench/build.sh recreates bench/out, so run this after it).
# Baselines (same run, same device):
#   head_sample        the sample at BASE_COMMIT (default HEAD) compiled with CAKEC (schedule unchanged,
#                      today's code generation);
#   head_sample_oldcg  the same source compiled with the code generation of before the address work:
#                      OLD_CAKEC=<a cakec built from that commit> rebuilds it; otherwise a prebuilt copy in
#                      BASELINE_DIR (default build-perf/ampere_baseline: head_sample_oldcg.cubin + .json) is
#                      copied when present.
# Env: ARCH (sm_90), BASE_COMMIT (HEAD), OLD_CAKEC, BASELINE_DIR, GEMM_ONLY=1 (skip the softmax variants).
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
    | grep -E "registers|error" | sed "s/^/[$name] /"
  [ -f "$OUT/$name.cubin" ] || { echo "build_perf_variants: $name failed to build" >&2; exit 1; }
  printf '%s{"name": "%s", "defines": "%s"}\n' "$sep" "$name" "$*" >> "$json"
  sep=","
}
# ampere_gemm variants (4096 and 8192 are multiples of every tile here; 8 warps unless noted).  Registers
# and shared memory per block: see the -v lines this prints.
gemm g_default                                   # 128x256x64, 3 stages, warps 64x64 (fits sm_80's 164 KB)
gemm g_s4 S=4                                    # 4 stages: 204 KB (sm_90 only); stage index kt % 4 is a mask
gemm g256x128_s4 BM=256 BN=128 S=4               # tall block: A 256 rows, B 128 columns per k-tile
gemm g128x256x32_s4 BK=32 S=4                    # BK=32: half the mma per barrier, more stages in flight
gemm g128x256x32_s6 BK=32 S=6                    # 159 KB
gemm g128x128_w64x32_s3 BN=128 WN=32 S=3         # 64 accumulators/thread: 2 blocks/SM if <= 128 registers
gemm g128x128_w64x32_s4 BN=128 WN=32 S=4         # 143 KB: 1 block/SM
gemm g128x128_w32x64_s4 BN=128 WM=32 S=4         # 8 warps of 32x64
# the sample at BASE_COMMIT (schedule unchanged) with this cakec, and with the old code generation
base=${BASE_COMMIT:-HEAD}
if git show "$base:samples/ampere_gemm.cake" > "$OUT/head_ampere_gemm.cake" 2>/dev/null; then
  "$CAKEC" "$OUT/head_ampere_gemm.cake" --no-verify --arch "$ARCH" -o "$OUT/head_sample.cubin" -v 2>&1 \
    | grep registers | sed "s/^/[head_sample] /"
  printf ',{"name": "head_sample", "defines": "%s sample, current cakec"}\n' "$base" >> "$json"
fi
bdir=${BASELINE_DIR:-build-perf/ampere_baseline}
if [ -n "${OLD_CAKEC:-}" ] && [ -f "$OUT/head_ampere_gemm.cake" ]; then
  "$OLD_CAKEC" "$OUT/head_ampere_gemm.cake" --no-verify --arch "$ARCH" -o "$OUT/head_sample_oldcg.cubin" -v 2>&1 \
    | grep registers | sed "s/^/[head_sample_oldcg] /"
  printf ',{"name": "head_sample_oldcg", "defines": "%s sample, OLD_CAKEC"}\n' "$base" >> "$json"
elif [ -f "$bdir/head_sample_oldcg.cubin" ] && [ -f "$bdir/head_sample_oldcg.cubin.json" ]; then
  cp "$bdir/head_sample_oldcg.cubin" "$bdir/head_sample_oldcg.cubin.json" "$OUT/"
  echo "[head_sample_oldcg] prebuilt copy from $bdir"
  printf ',{"name": "head_sample_oldcg", "defines": "HEAD sample, HEAD code generation (prebuilt)"}\n' >> "$json"
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
if [ "${GEMM_ONLY:-0}" = 1 ]; then echo ']}' >> "$json"; exit 0; fi
softmax s_w8_v4 8 4
softmax s_w4_v4 4 4
softmax s_w16_v4 16 4
softmax s_w8_v2 8 2
softmax s_w16_v2 16 2
softmax s_w32_v1 32 1
softmax s_w4_v8 4 8
echo ']}' >> "$json"
