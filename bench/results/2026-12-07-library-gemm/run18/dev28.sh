set -u
mkdir -p $OUT/t
export CAKE_RUNTIME_LIB=$PWD/bench/out/libbench/libcake_runtime.so
L=bench/out/libbench/libraries/gemm_bf16_sm90
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $OUT/t/smi.txt 2>&1
FV=tile_64x128_s4,tile_64x32_s8,splitk_128x256_x4,tile_128x128_s6,tile_128x112_s7,persistent_bn128,cl_128x128_s6_2x2,cl_128x112_s7_2x2,cl_128x112_s7_4x1,cl_128x112_s6_2x1,splitk_256x128_x2,splitk_192x128_x2,tile_192x128_s4,splitk_128x128_x4,cl_128x256_s4_2x2,cl_128x256_s4_2x1,tile_128x96_s7
timeout 170 python3 bench/library_bench.py --library $L --all-variants --variants $FV --shapes 227x6272x6656,205x7682x4576,255x3904x3360,209x5500x14176,252x5696x14136,256x7756x8160,230x4608x10336,248x6248x14768,255x7360x12808,227x7504x7440,232x4608x3488,215x4270x7616,241x4864x4344,223x4024x3680,194x4672x6256,207x4660x8664,183x5952x13440,133x5424x4232,174x5824x6400,182x5652x9304,154x5504x7768,139x4346x7936,161x6080x6560,191x7402x6376,123x6848x5696,122x6830x4904,81x6400x3456,108x7398x5416,106x7808x12792,107x5584x8304,96x4224x10344,104x4864x12800,229x5568x6680,253x6028x14792,252x6592x11720,208x4858x7640,219x5504x14816,207x4918x2144,200x6656x3680,219x5534x10440,197x11200x14672,201x10034x2184,246x9600x7576,207x10834x3968,194x14912x5120,246x10674x10808 --variant-s 0.1 --budget-s 150 --out $OUT/t/fresh > $OUT/t/fresh_log.txt 2>&1; echo "fresh rc $?"; tail -4 $OUT/t/fresh_log.txt
(cd $OUT && tar czf t.tgz t)
timeout 60 python3 bench/library_bench.py --library $L --set held_out --held-out-seed 2041 --budget-s 45 --out $OUT/t/held2041 > $OUT/t/held2041_log.txt 2>&1; echo "held2041 rc $?"; tail -4 $OUT/t/held2041_log.txt
(cd $OUT && tar czf t.tgz t)
for v in cl_128x112_s7_2x2 tile_128x112_s7; do
  timeout 70 ncu --set full --import-source yes --nvtx --nvtx-include prof/ --launch-count 1 -o $OUT/t/prof_$v python3 bench/gemm_peer_profile.py launch --library $L --variant $v --shape 242,6656,3992 --count 2 > $OUT/t/ncu_$v.log 2>&1
  echo "$v rc $?"; tail -2 $OUT/t/ncu_$v.log
  ncu --import $OUT/t/prof_$v.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $OUT/t/sass_$v.csv.gz
  ncu --import $OUT/t/prof_$v.ncu-rep --page details > $OUT/t/details_$v.txt 2>&1
  grep -E "Duration|Stall|L2 Cache Throughput|DRAM Throughput" $OUT/t/details_$v.txt | head -8
(cd $OUT && tar czf t.tgz t)
done
cd $OUT && tar czf t.tgz t && rm -rf t
