#!/usr/bin/env bash
# bench/kda_build.sh: compiles the KDA kernels (kernels/kda/) for bench/kda_bench.py and cakeir.kda.kernels, on
# the development machine (no GPU), into bench/out/kda/cubins/ (bench/build_variants.sh: cubins, manifests,
# variants.json with each variant's verification status, registers and spills, the runtime library).
#
#   kda_recurrent_<gate>_<layout>[_nostate][_k64]  kernels/kda/recurrent.cake; gate safe (SAFE = 1, lower
#                                             bound) or unbounded (SAFE = 0); state layout vfirst ([N, H, V, K]) or
#                                             kfirst; _nostate: no initial state read, no final state written;
#                                             _k64: K = V = 64 (8 lanes a state column)
#   kda_chunk_scan_<layout>[_varlen][_nostate] kernels/kda/chunk_scan.cake (the sequential half of the chunked
#                                             form); _varlen: VARLEN = 1 (sequence bounds from cu_seqlens)
#   kda_chunk_scan_wg2_<layout>[_varlen][_nostate]  the same with WG = 2 (both 64-column blocks of a (sequence,
#                                             head) as two warpgroups of one block sharing the ring tiles)
#   kda_chunk_prep_<gate>                      kernels/kda/chunk_prep.cake (the parallel half: activations, gate
#                                             cumsum, L, P, the UT inverse, w, u, qg, kg, e^G_last)
#   kda_chunk_prep_tc_<gate>                   kernels/kda/chunk_prep_tc.cake (the same on the tensor cores)
#   kda_chunk_prep_tc2_<gate>                  kernels/kda/chunk_prep_tc2.cake (chunk_prep_tc in 109 KB of shared
#                                             memory and at most 128 registers: two blocks per SM; the safe
#                                             gate needs --maxrregcount=128 for that, the unbounded one not)
#   kda_chunk_prep_tc3_safe                    kernels/kda/chunk_prep_tc3.cake (every entry of L and P as tf32
#                                             mma.sync products factored through the sub-chunk's middle row; safe
#                                             gate only: the unbounded gate runs tc2)
#
# Usage: bash bench/kda_build.sh [--list]      Env: as bench/build_variants.sh (BUILD_DIR, CAKEC, RUNTIME_LIB)
set -u -o pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rec=kernels/kda/recurrent.cake
scan=kernels/kda/chunk_scan.cake
prep=kernels/kda/chunk_prep.cake
preptc=kernels/kda/chunk_prep_tc.cake
preptc2=kernels/kda/chunk_prep_tc2.cake
preptc3=kernels/kda/chunk_prep_tc3.cake

variants() {
  for gate in safe unbounded; do
    safe=$([ $gate = safe ] && echo 1 || echo 0)
    for layout in vfirst kfirst; do
      vf=$([ $layout = vfirst ] && echo 1 || echo 0)
      echo "kda_recurrent_${gate}_${layout}|$rec|SAFE=$safe VFIRST=$vf"
      echo "kda_recurrent_${gate}_${layout}_nostate|$rec|SAFE=$safe VFIRST=$vf USE_H0=0 STORE_HT=0"
      echo "kda_recurrent_${gate}_${layout}_k64|$rec|SAFE=$safe VFIRST=$vf KD=64 VD=64 TPC=8"
      echo "kda_recurrent_${gate}_${layout}_nostate_k64|$rec|SAFE=$safe VFIRST=$vf USE_H0=0 STORE_HT=0 KD=64 VD=64 TPC=8"
    done
  done
  echo "kda_chunk_prep_safe|$prep|SAFE=1"
  echo "kda_chunk_prep_unbounded|$prep|SAFE=0"
  echo "kda_chunk_prep_tc_safe|$preptc|SAFE=1"
  echo "kda_chunk_prep_tc_unbounded|$preptc|SAFE=0"
  # at the 128-register cap ptxas spills 24 bytes of straight-line code (tests/lit/kernels/kda.cake pins <= 32)
  echo "kda_chunk_prep_tc2_safe|$preptc2|SAFE=1 --maxrregcount=128 max-spills=32"
  echo "kda_chunk_prep_tc2_unbounded|$preptc2|SAFE=0"
  echo "kda_chunk_prep_tc3_safe|$preptc3|"
  for layout in vfirst kfirst; do
    vf=$([ $layout = vfirst ] && echo 1 || echo 0)
    for vl in 0 1; do
      sfx=$([ $vl = 1 ] && echo _varlen || true)
      echo "kda_chunk_scan_${layout}${sfx}|$scan|VFIRST=$vf VARLEN=$vl"
      echo "kda_chunk_scan_${layout}${sfx}_nostate|$scan|VFIRST=$vf VARLEN=$vl USE_H0=0 STORE_HT=0"
      echo "kda_chunk_scan_wg2_${layout}${sfx}|$scan|VFIRST=$vf VARLEN=$vl WG=2"
      echo "kda_chunk_scan_wg2_${layout}${sfx}_nostate|$scan|VFIRST=$vf VARLEN=$vl USE_H0=0 STORE_HT=0 WG=2"
    done
  done
}

if [ "${1:-}" = "--list" ]; then variants; exit 0; fi
if [ $# -gt 0 ]; then echo "kda_build.sh: unknown argument '$1'" >&2; exit 2; fi
variants | bash "$repo/bench/build_variants.sh" "$repo/bench/out/kda/cubins"
