set -u
mkdir -p $OUT/t
export CAKE_RUNTIME_LIB=$PWD/bench/out/libbench/libcake_runtime.so
L=bench/out/libbench/libraries/gemm_bf16_sm90
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $OUT/t/smi.txt 2>&1
SH=140x6208x8160,133x6120x5256,139x6208x11640,132x5872x4424,133x6656x9224,137x5952x4288,136x7184x6096,143x6276x9976,156x7406x5600,166x5742x7536,177x6058x13616,172x6848x5400,116x5952x6432,83x6962x4864,72x6334x7904,108x6202x4968,88x5504x6176,98x6528x5272,95x5860x4896,98x6530x6984,116x7168x7800,79x7360x5512,102x6720x8056,85x6592x8536
V=splitk_128x256_x4,splitk_192x128_x2,tile_128x112_s7,tile_192x128_s4,tile_64x32_s8,cl_128x112_s7_4x1,tile_128x128_s6
timeout 150 python3 bench/library_bench.py --library $L --all-variants --variants $V --shapes $SH --variant-s 0.1 --budget-s 120 --out $OUT/t/fresh2 > $OUT/t/fresh2_log.txt 2>&1; echo "fresh2 rc $?"; tail -4 $OUT/t/fresh2_log.txt
cd $OUT && tar czf t.tgz t && rm -rf t
