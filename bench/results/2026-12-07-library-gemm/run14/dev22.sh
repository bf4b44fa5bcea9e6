set -u
mkdir -p $OUT/t
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/t/smi.txt 2>&1
export CAKE_RUNTIME_LIB=$PWD/bench/out/libbench/libcake_runtime.so
L=bench/out/libbench/libraries/gemm_bf16_sm90
run() { name=$1; shift; t=$1; shift; s=$(date +%s); timeout $t python3 bench/library_bench.py "$@" --out $OUT/t/$name > $OUT/t/${name}_log.txt 2>&1; echo "$name rc $? $(( $(date +%s)-s ))s"; tail -3 $OUT/t/${name}_log.txt | cut -c1-300; (cd $OUT && tar czf t.tgz t); }
MIDM2=202x8614x9040,236x15296x6536,199x6008x7536,213x6784x2304,190x10642x3232,178x1920x3616,196x12608x9624,238x7232x2400,298x4904x5288,193x3200x14080,237x9690x2976,276x4864x2752,154x12300x4688,138x1152x3112,131x4120x7152,177x4544x6088
VV=tile_64x32_s8,tile_64x128_s4,tile_128x128_s6,splitk_128x128_x4,splitk_128x256_x4,cl_128x256_s4_2x1,tile_192x64_s6,tile_192x128_s4,tile_256x128_s4,splitk_192x128_x2,splitk_256x128_x2,splitk_192x64_x2
run midm2 60 --library $L --shapes $MIDM2 --budget-s 45
run held2039 100 --library $L --set held_out --held-out-seed 2039 --budget-s 80
run train 160 --library $L --budget-s 140
run midm2_all 150 --library $L --all-variants --variants $VV --shapes $MIDM2 --variant-s 0.1 --budget-s 130
cd $OUT && tar czf t.tgz t && rm -rf t
