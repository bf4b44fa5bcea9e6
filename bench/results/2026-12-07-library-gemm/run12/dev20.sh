set -u
mkdir -p $OUT/t
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/t/smi.txt 2>&1
export CAKE_RUNTIME_LIB=$PWD/bench/out/libbench/libcake_runtime.so
L=bench/out/libbench/libraries/gemm_bf16_sm90
run() { name=$1; shift; t=$1; shift; s=$(date +%s); timeout $t python3 bench/library_bench.py "$@" --out $OUT/t/$name > $OUT/t/${name}_log.txt 2>&1; echo "$name rc $? $(( $(date +%s)-s ))s"; tail -4 $OUT/t/${name}_log.txt | cut -c1-300; (cd $OUT && tar czf t.tgz t); }
SK=streamk_128x128_s6,streamk_128x256_s4,tile_128x128_s6,tile_64x32_s8,splitk_128x128_x4,tile_64x128_s4
SKS=156x3776x2856,145x10736x1944,165x8400x7240,168x5176x7104,200x4096x4096,256x8192x4096,300x2048x8192,129x4096x11008
MIDM=168x9110x14272,166x1520x4256,205x1290x2584,280x9604x15592,166x4538x12776,187x1056x3280,240x1452x3312,225x11248x7976,250x6174x5848,231x1458x11336,313x15302x7664,295x2058x2448,291x1328x10840,156x5026x2688,185x2790x8352,309x1056x9720
run sk 40 --library $L --all-variants --variants $SK --shapes $SKS --variant-s 0.1 --budget-s 30
run midm_table 16 --library $L --shapes $MIDM --budget-s 11
run midm_sk 16 --library bench/out/libbench/libraries/gemm_sk --shapes $MIDM --budget-s 11
cd $OUT && tar czf t.tgz t && rm -rf t
