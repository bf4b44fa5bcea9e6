#!/usr/bin/env bash
# bench/kda_device_run.sh KDA_DIR [BENCH_ARGS...]: one device call for issue 16 (the GPU machine; $OUT set).
# KDA_DIR (carried, git-ignored, e.g. bench/out/kda) holds
#   stage/     a copy of this branch's bench/, runtime/python/cakeir and machines/ (what the scripts import)
#   peers/     FlashKDA/ (source + cutlass/) and fla/ (flash-linear-attention's source)
#   cubins/    bench/kda_build.sh's cubins and libcake_runtime.so
#   cache/     optional: flash_kda_C.so.gz and triton-cache.tgz from an earlier call (skip the 93 s FlashKDA
#              build and fla's Triton compilation / autotuning)
# KDA_BENCH_TIMEOUT (seconds, default 300) bounds the bench step (fla's Triton compilation takes ~80 s a shape).
# Steps: FlashKDA (unpack or build) -> kda_check.py (the CAKE kernel's correctness sweep) -> kda_bench.py (all
# implementations, same process) -> pack the FlashKDA module and the Triton cache for the next call.
set -u
kda="$(cd "${1:?usage: kda_device_run.sh KDA_DIR [BENCH_ARGS...]}" && pwd)"
shift
export PYTHONUNBUFFERED=1 FLA_CACHE_RESULTS=1 TRITON_CACHE_DIR=/tmp/triton-cache
export CAKE_RUNTIME_LIB="$kda/cubins/libcake_runtime.so"
cd "$kda/stage"
start=$(date +%s)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"; } 2>&1 | tee "$OUT/log.txt"
if [ -f "$kda/cache/triton-cache.tgz" ]; then mkdir -p /tmp/triton-cache && tar xzf "$kda/cache/triton-cache.tgz" -C /tmp; fi
if [ -f "$kda/cache/flash_kda_C.so.gz" ]; then
  gunzip -c "$kda/cache/flash_kda_C.so.gz" > "$kda/peers/FlashKDA/flash_kda_C.cpython-312-x86_64-linux-gnu.so"
fi
bash bench/kda_build_flashkda.sh "$kda/peers" 2>&1 | tail -n 3 | tee -a "$OUT/log.txt"
echo "== $(( $(date +%s) - start )) s: kda_check" | tee -a "$OUT/log.txt"
timeout 120 python3 bench/kda_check.py --cubins "$kda/cubins" --out "$OUT" 2>&1 | tail -n 40 >> "$OUT/log.txt"
# a CAKE path joins the bench only when the sweep found it correct on every case (a faulting kernel would end the
# bench's CUDA context, and the peers' timings with it)
cake_ok=$(python3 - "$OUT/kda_check.json" <<'PY'
import json, sys
try:
    cases = json.load(open(sys.argv[1]))["cases"]
except Exception:
    cases = []
# a path counts when some case ran it and every case either passed it or does not serve it (K = 64 cases run the
# recurrent kernel only); a case that failed before its paths ran ("error") fails them all
ok = lambda key: any(key in c for c in cases) and all("error" not in c and c.get(key, True) for c in cases)
names = []
if cases and all("error" not in c and c.get("o_rel_err", 1) <= 1e-2 for c in cases):
    names.append("cake")
labels = sorted({k[len("chunked_"):-len("_ok")] for c in cases for k in c
                 if k.startswith("chunked_") and k.endswith("_ok")})
for label in labels:            # kda_check's chunked paths -> kda_bench's names
    if ok("chunked_%s_ok" % label):
        names.append(label.replace("torch", "cake_scan") if label.startswith("torch")
                     else label.replace("cake", "cake_chunked", 1))
print(",".join(names))
PY
)
echo "CAKE paths correct on every case: ${cake_ok:-none}" | tee -a "$OUT/log.txt"
echo "== $(( $(date +%s) - start )) s: kda_bench" | tee -a "$OUT/log.txt"
timeout "${KDA_BENCH_TIMEOUT:-300}" python3 bench/kda_bench.py --peers "$kda/peers" --cake "$kda/cubins" --out "$OUT" \
  --only-cake "${cake_ok:-none}" "$@" 2>&1 | grep -v -i warning | tee -a "$OUT/log.txt"
echo "== $(( $(date +%s) - start )) s: packing" | tee -a "$OUT/log.txt"
so=$(ls "$kda"/peers/FlashKDA/flash_kda_C*.so 2>/dev/null | head -n 1)
if [ -n "$so" ]; then strip --strip-debug -o /tmp/fk.so "$so" && gzip -c /tmp/fk.so > "$OUT/flash_kda_C.so.gz"; fi
tar czf "$OUT/triton-cache.tgz" -C /tmp triton-cache 2>/dev/null
ls -la "$OUT" | tee -a "$OUT/log.txt"
