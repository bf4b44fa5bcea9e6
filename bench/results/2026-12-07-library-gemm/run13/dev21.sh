set -u
mkdir -p $OUT/t
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/t/smi.txt 2>&1
export CAKE_RUNTIME_LIB=$PWD/bench/out/libbench/libcake_runtime.so
L=bench/out/libbench/libraries/gemm_bf16_sm90
run() { name=$1; shift; t=$1; shift; s=$(date +%s); timeout $t python3 bench/library_bench.py "$@" --out $OUT/t/$name > $OUT/t/${name}_log.txt 2>&1; echo "$name rc $? $(( $(date +%s)-s ))s"; tail -3 $OUT/t/${name}_log.txt | cut -c1-300; (cd $OUT && tar czf t.tgz t); }
VV=tile_64x32_s8,tile_64x128_s4,tile_128x128_s6,splitk_128x128_x4,splitk_128x256_x4,cl_128x256_s4_2x1,streamk_128x128_s6,tile_192x64_s6,tile_256x64_s5,tile_192x128_s4,tile_256x128_s4,splitk_192x128_x2,splitk_256x128_x2,splitk_192x64_x2
VAL=259x1626x2336,301x2814x2776,243x1958x6224,282x11164x8192,196x4982x5296,280x13714x4832,146x1200x3328,161x7458x2640,306x1244x10472,280x7358x3000,173x1108x4344,316x1564x3200
TRAIN=156x3776x2856,145x10736x1944,165x8400x7240,168x5176x7104,200x4096x4096,256x8192x4096,300x2048x8192,129x4096x11008,168x9110x14272,166x1520x4256,205x1290x2584,280x9604x15592,166x4538x12776,187x1056x3280,240x1452x3312,225x11248x7976,250x6174x5848,231x1458x11336,313x15302x7664,295x2058x2448,291x1328x10840,156x5026x2688,185x2790x8352,309x1056x9720
run val 200 --library $L --all-variants --variants $VV --shapes $VAL --variant-s 0.1 --budget-s 170
run train 330 --library $L --all-variants --variants $VV --shapes $TRAIN --variant-s 0.1 --budget-s 300
cd $OUT && tar czf t.tgz t && rm -rf t
