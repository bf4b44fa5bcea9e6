set -u
mkdir -p $OUT/t
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/t/smi.txt 2>&1
export CAKE_RUNTIME_LIB=$PWD/bench/out/libbench/libcake_runtime.so
L=bench/out/libbench/libraries/gemm_bf16_sm90
run() { name=$1; shift; t=$1; shift; s=$(date +%s); timeout $t python3 bench/library_bench.py "$@" --out $OUT/t/$name > $OUT/t/${name}_log.txt 2>&1; echo "$name rc $? $(( $(date +%s)-s ))s"; tail -3 $OUT/t/${name}_log.txt | cut -c1-300; (cd $OUT && tar czf t.tgz t); }
SH=211x4864x3704,239x6336x2680,214x5184x10184,201x3392x5408,242x6656x3992,197x4224x4480,253x3520x4208,486x6336x1064,672x2368x1760,375x1280x2528,856x1536x4784,470x1600x7024,657x4480x1760,451x2176x3064,556x3136x1640,1451x4928x3040,817x1792x2432,384x1920x8528,236x15296x6536,213x6784x2304,178x1920x3616,196x12608x9624,238x7232x2400,193x3200x14080,276x4864x2752,138x1152x3112,177x4544x6088
VV=tile_128x128_s6,tile_128x112_s7,persistent_bn128,cl_128x128_s6_2x2,cl_128x112_s6_2x1,cl_128x112_s7_4x2,cl_128x112_s7_2x2,cl_128x128_s6_4x2,cl_128x128_s6_2x4,cl_128x256_s4_2x2,cl_128x112_s7_4x1
run aligned 230 --library $L --all-variants --variants $VV --shapes $SH --variant-s 0.1 --budget-s 200
MID=254x5302x8696,230x6486x13576,245x5130x10472,248x5784x14912,220x6862x9328,256x7010x9336,202x6578x11320,238x6484x7776,237x6228x11784,215x5258x10384,213x6510x14992,253x7092x14152
MV=splitk_256x128_x2,tile_256x128_s4,splitk_128x128_x4,tile_128x128_s6,cl_128x128_s6_2x2,cl_128x112_s7_4x2,tile_192x128_s4,splitk_192x128_x2,splitk_128x256_x4
run midm 110 --library $L --all-variants --variants $MV --shapes $MID --variant-s 0.1 --budget-s 90
run held2040 100 --library $L --set held_out --held-out-seed 2040 --budget-s 80
for v in cl_128x112_s7_4x2 tile_128x112_s7; do
  timeout 60 ncu --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
     --nvtx --nvtx-include prof/ --launch-count 2 python3 bench/gemm_peer_profile.py launch --library $L --variant $v --shape 242,6656,3992 --count 2 > $OUT/t/ncu_$v.txt 2>&1
  echo "$v rc $?"; grep -E "Duration|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|Grid Size|Cluster" $OUT/t/ncu_$v.txt | head -12
done
cd $OUT && tar czf t.tgz t && rm -rf t
