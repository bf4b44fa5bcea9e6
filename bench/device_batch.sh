#!/usr/bin/env bash
# bench/device_batch.sh: runs several bench parts in ONE device call (the device time is scarce: each call that
# finds no warm machine spends a minute or more starting one).  Each part runs under its own time limit; its
# output goes to $OUT/<part>/ and its log to $OUT/<part>.log; at the end everything under $OUT is packed into
# $OUT/batch.tgz as well (the device tool returns at most 8 files, two folders deep).
#
# Parts (run in the order given):
#   main       python3 bench/run_bench.py            every sample vs its torch peer (docs/gpu.md)
#   ampere     python3 bench/perf_gemm_softmax.py    ampere_gemm -D variants vs cuBLAS (bench/build_perf_variants.sh)
#   epilogue   python3 bench/epilogue_bench.py       TMA-store-epilogue GEMM vs the persistent sample and cuBLAS
#   sweep      python3 bench/sweep_bench.py          cost-model calibration variants (bench/sweep_build.sh)
#   ceilings   python3 bench/measure_ceilings.py     the H200's ceilings for machines/h200.json
#   fragments  bench/attention_bench.py, gemm_bias_act_bench.py, kmeans_assign_bench.py (bench/fragment_samples_build.sh)
#              in turn, each with a share of the limit; $FRAGMENT_SAMPLES_FLAGS (e.g. --peers-only) goes to all three;
#              then (unless --peers-only) bench/fragment_samples_small.py under compute-sanitizer memcheck and racecheck
# Usage (on the device, from the repository root, carrying bench/out):  bash bench/device_batch.sh PART[=SECONDS] ...
# Build first, here: bash bench/build.sh && the build script of each part (see each script's header).
set -u -o pipefail
export PYTHONUNBUFFERED=1
out=${OUT:?OUT must name the output folder}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > "$out/device.txt" 2>&1

for spec in "$@"; do
  part=${spec%%=*}
  limit=${spec#*=}
  [ "$limit" = "$spec" ] && limit=240
  mkdir -p "$out/$part"
  case $part in
    main)     cmd=(python3 bench/run_bench.py --out "$out/$part" --budget $((limit - 30))) ;;
    ampere)   cmd=(env ONLY=gemm python3 bench/perf_gemm_softmax.py bench/out/ampere --out "$out/$part") ;;
    epilogue) cmd=(python3 bench/epilogue_bench.py --out "$out/$part") ;;
    sweep)    cmd=(python3 bench/sweep_bench.py --out "$out/$part" --budget $((limit - 30))) ;;
    ceilings) cmd=(python3 bench/measure_ceilings.py --out "$out/$part") ;;
    fragments)  cmd=(bash -c 'o=$1; l=$2; f=${FRAGMENT_SAMPLES_FLAGS:-}; rc=0
                 python3 bench/attention_bench.py --out "$o" --budget $((l * 4 / 10)) $f || rc=1
                 python3 bench/gemm_bias_act_bench.py --out "$o" --budget $((l * 3 / 10)) $f || rc=1
                 python3 bench/kmeans_assign_bench.py --out "$o" --budget $((l * 2 / 10)) $f || rc=1
                 case " $f " in *" --peers-only "*) ;; *)
                   for tool in memcheck racecheck; do
                     timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 python3 bench/fragment_samples_small.py \
                       > "$o/sanitizer_$tool.log" 2>&1 || rc=1
                     tail -n 3 "$o/sanitizer_$tool.log"
                   done ;;
                 esac
                 exit $rc' fragments "$out/$part" "$limit") ;;
    *) echo "device_batch.sh: unknown part '$part'" >&2; continue ;;
  esac
  echo "=== $part (limit ${limit}s): ${cmd[*]}"
  start=$(date +%s)
  timeout --kill-after=10 "$limit" "${cmd[@]}" > "$out/$part.log" 2>&1
  rc=$?
  echo "=== $part: exit $rc after $(( $(date +%s) - start ))s"
  tail -n 25 "$out/$part.log"
done
tar czf /tmp/batch.tgz -C "$out" . && mv /tmp/batch.tgz "$out/batch.tgz"
