set -u
mkdir -p $OUT/t
export CAKE_RUNTIME_LIB=$PWD/bench/out/libbench/libcake_runtime.so
L=bench/out/libbench/libraries/gemm_bf16_sm90
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $OUT/t/smi.txt 2>&1
for v in torch tile_128x128_s6 cl_128x128_s4_2x1 persistent_bn128 tile_256x128_s4; do
  timeout 100 ncu --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy \
     --nvtx --nvtx-include prof/ --launch-count 2 python3 bench/gemm_peer_profile.py launch --library $L --variant $v --shape 242,6656,3992 --count 2 > $OUT/t/ncu_$v.txt 2>&1
  echo "$v rc $?"; grep -E "Duration|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|^  [a-z_0-9]+.*\(|Registers Per|Grid Size|Block Size" $OUT/t/ncu_$v.txt | head -20
done
cd $OUT && tar czf t.tgz t && rm -rf t
