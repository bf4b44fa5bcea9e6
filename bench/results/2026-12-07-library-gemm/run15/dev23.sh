set -u
mkdir -p $OUT/t
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/t/smi.txt 2>&1
export CAKE_RUNTIME_LIB=$PWD/bench/out/libbench/libcake_runtime.so
L=bench/out/libbench/libraries/gemm_bf16_sm90
run() { name=$1; shift; t=$1; shift; s=$(date +%s); timeout $t python3 bench/library_bench.py "$@" --out $OUT/t/$name > $OUT/t/${name}_log.txt 2>&1; echo "$name rc $? $(( $(date +%s)-s ))s"; tail -3 $OUT/t/${name}_log.txt | cut -c1-300; (cd $OUT && tar czf t.tgz t); }
SA=231x5604x3424,211x4864x3704,239x6336x2680,214x5184x10184,200x5834x11848,201x3392x5408,236x4554x13240,242x6656x3992,228x4836x6800,197x4224x4480,221x11084x14000,253x3520x4208
SB=486x6336x1064,672x2368x1760,330x4742x4024,375x1280x2528,1431x1150x13816,856x1536x4784,1017x6666x10232,470x1600x7024,698x1376x5776,657x4480x1760,459x4354x13840,451x2176x3064,601x8126x2376,556x3136x1640,414x1138x12952,1451x4928x3040,1170x2280x2712,817x1792x2432,478x4880x9496,384x1920x8528
VA=tile_128x128_s6,cl_128x256_s4_2x1,tile_256x128_s4,tile_256x64_s5,splitk_256x128_x2,splitk_128x128_x4,splitk_128x256_x4,tile_64x128_s4,persistent_bn128,persistent_bn256
VB=persistent_bn128,persistent_bn192,persistent_bn256,tma_epilogue_bn128,tma_epilogue_bn256,tile_128x128_s6,tile_128x64_s4,tile_128x256_s4,cl_128x256_s4_2x1,cl_128x128_s4_2x1,tile_256x128_s4,splitk_128x128_x4,splitk_128x256_x4,splitk_256x128_x2,pingpong_128x128_s6,tile_192x128_s4
run m256 150 --library $L --all-variants --variants $VA --shapes $SA --variant-s 0.1 --budget-s 130
run m1k 300 --library $L --all-variants --variants $VB --shapes $SB --variant-s 0.1 --budget-s 270
cd $OUT && tar czf t.tgz t && rm -rf t
