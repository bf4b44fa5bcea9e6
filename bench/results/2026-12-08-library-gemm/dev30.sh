set -u
mkdir -p $OUT/t
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version --format=csv > $OUT/t/smi.txt 2>&1
export CAKE_RUNTIME_LIB=$PWD/bench/out/libbench/libcake_runtime.so
L=bench/out/libbench/libraries/gemm_bf16_sm90
SH=140x6208x8160,133x6120x5256,139x6208x11640,132x5872x4424,133x6656x9224,137x5952x4288,136x7184x6096,143x6276x9976,156x7406x5600,166x5742x7536,177x6058x13616,172x6848x5400,116x5952x6432,83x6962x4864,72x6334x7904,108x6202x4968,88x5504x6176,98x6528x5272,95x5860x4896,98x6530x6984,116x7168x7800,79x7360x5512,102x6720x8056,85x6592x8536
V=splitk_128x256_x4,splitk_192x128_x2,tile_128x112_s7,tile_192x128_s4,tile_64x32_s8,cl_128x112_s7_4x1,tile_128x128_s6
timeout 150 python3 bench/library_bench.py --library $L --all-variants --variants $V --shapes $SH --variant-s 0.1 --budget-s 115 --out $OUT/t/fresh2 > $OUT/t/fresh2_log.txt 2>&1; echo "fresh2 rc $?"; tail -3 $OUT/t/fresh2_log.txt
unset CAKE_RUNTIME_LIB
(cd $OUT && tar czf t1.tgz t)
timeout 170 python3 bench/knn_ab.py --a bench/out/knnlib/cubins_old --b bench/out/knnlib/cubins --out $OUT/t/ab_k1_small.json --seed 20261210 --ks 1 --max-work-log2 28 --count 90 --budget-s 135 > $OUT/t/ab_k1_small.log 2>&1; echo "ab small rc $?"; tail -1 $OUT/t/ab_k1_small.log
(cd $OUT && tar czf t2.tgz t)
timeout 110 python3 bench/knn_ab.py --a bench/out/knnlib/cubins_old --b bench/out/knnlib/cubins --out $OUT/t/ab_k1_big.json --seed 20261211 --ks 1 --count 40 --budget-s 80 > $OUT/t/ab_k1_big.log 2>&1; echo "ab big rc $?"; tail -1 $OUT/t/ab_k1_big.log
(cd $OUT && tar czf t3.tgz t)
timeout 90 ncu --metrics gpu__time_duration.sum,sm__cycles_active.max,smsp__inst_executed.sum,launch__shared_mem_per_block_dynamic,launch__registers_per_thread,launch__block_size,launch__grid_size -k regex:"knn|flash" python3 bench/out/exp/prof_tiny.py > $OUT/t/ncu_tiny.txt 2>&1; echo "ncu rc $?"
(cd $OUT && tar czf t.tgz t && rm -rf t t1.tgz t2.tgz t3.tgz)
