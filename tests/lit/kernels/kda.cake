// The KDA kernels (kernels/kda/) verify and compile to the schedule their headers describe.
// RUN: %cakec --verify-only %kernels/kda/recurrent.cake 2>&1 | %FileCheck %s --check-prefix=REC
// REC: verified
// REC-NOT: warning
// RUN: %cakec --verify-only -D SAFE=0 -D VFIRST=0 %kernels/kda/recurrent.cake 2>&1 | %FileCheck %s --check-prefix=REC
// K = V = 64: 8 lanes a state column, a 3-step butterfly (tests/python/test_kda_recurrent_interpreted.py compares it
// with the K = 128 build on zero-padded inputs in the interpreter):
// RUN: %cakec --verify-only -D KD=64 -D VD=64 -D TPC=8 %kernels/kda/recurrent.cake 2>&1 | %FileCheck %s --check-prefix=REC
// RUN: %cakec --verify-only -D KD=64 -D VD=64 -D TPC=8 -D SAFE=0 -D VFIRST=0 -D USE_H0=0 -D STORE_HT=0 %kernels/kda/recurrent.cake 2>&1 | %FileCheck %s --check-prefix=REC
// RUN: %cakec -v --no-verify -D KD=64 -D VD=64 -D TPC=8 %kernels/kda/recurrent.cake -o %t.k64.cubin 2>&1 | %FileCheck %s --check-prefix=REC64
// REC64: kda_recurrent (sm_90a): {{.*}} 0 bytes spill stores, 0 bytes spill loads
// RUN: %cakec --no-verify --emit=ptx %kernels/kda/recurrent.cake -o - | %FileCheck %s --check-prefix=RECPTX
// the column group's sums are 16-lane butterflies; q / k / g arrive as 16-byte loads:
// RECPTX: .entry kda_recurrent
// RECPTX-DAG: shfl.sync.bfly.b32
// RECPTX-DAG: ld.global.nc.v4.b32
// RUN: %cakec --verify-only %kernels/kda/chunk_prep.cake 2>&1 | %FileCheck %s --check-prefix=PREP
// PREP: verified
// PREP-NOT: warning
// RUN: %cakec --verify-only -D SAFE=0 %kernels/kda/chunk_prep.cake 2>&1 | %FileCheck %s --check-prefix=PREP
// RUN: %cakec --verify-only %kernels/kda/chunk_scan.cake 2>&1 | %FileCheck %s --check-prefix=SCAN
// SCAN: verified
// RUN: %cakec --no-verify --emit=ptx %kernels/kda/chunk_scan.cake -o - | %FileCheck %s --check-prefix=SCANPTX
// the ring is filled by 2-D TMA, the four products are m64n64 wgmmas, S goes through shared memory:
// SCANPTX: .entry kda_chunk_scan
// SCANPTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// SCANPTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// SCANPTX-DAG: fence.proxy.async.shared::cta
// u and e^G_last come through the ring as well (no ld.global on the chunk chain; only the initial state is
// read with ld.global):
// RUN: %cakec --no-verify --emit=ptx -D USE_H0=0 %kernels/kda/chunk_scan.cake -o - | %FileCheck %s --check-prefix=SCANNOLD
// SCANNOLD: .entry kda_chunk_scan
// SCANNOLD-NOT: ld.global
// two warpgroups a block (both column blocks of a head share the ring; empty[2] with one arrival per warpgroup
// releases a stage), one block per SM, no spills:
// RUN: %cakec --verify-only -D WG=2 %kernels/kda/chunk_scan.cake 2>&1 | %FileCheck %s --check-prefix=SCAN
// RUN: %cakec -v --no-verify -D WG=2 %kernels/kda/chunk_scan.cake -o %t.cubin 2>&1 | %FileCheck %s --check-prefix=SCANWG2RES
// (and ptxas keeps the wgmma instructions asynchronous: no C7518 serialization, in either build)
// RUN: %cakec -v --no-verify %kernels/kda/chunk_scan.cake -o %t.cubin 2>&1 | %FileCheck %s --check-prefix=SCANRES
// SCANRES: kda_chunk_scan (sm_90a): {{.*}} 0 bytes spill stores, 0 bytes spill loads
// SCANRES-NOT: serialized
// SCANRES: kda_chunk_scan: 164896 bytes dynamic shared memory
// SCANWG2RES: kda_chunk_scan (sm_90a): {{.*}} 0 bytes spill stores, 0 bytes spill loads
// SCANWG2RES-NOT: serialized
// SCANWG2RES: kda_chunk_scan: 214048 bytes dynamic shared memory
// RUN: %cakec --no-verify --emit=ptx -D WG=2 %kernels/kda/chunk_scan.cake -o - | %FileCheck %s --check-prefix=SCANWG2PTX
// SCANWG2PTX: .entry kda_chunk_scan
// SCANWG2PTX-DAG: mbarrier.init.shared.b64 [{{.*}}], 2;
// SCANWG2PTX-DAG: mbarrier.arrive.shared.b64
// SCANWG2PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// the varlen variant reads each sequence's bounds from cu_seqlens and its first chunk from CO (inputs the kernel
// never writes, read modulo TT + 1 and NCT + 1 at the block's sequence): the verifier takes them as inputs of
// the launch, like the shape, and simulates the chunk counts they allow, empty and one-chunk sequences included
// RUN: %cakec --verify-only -D VARLEN=1 %kernels/kda/chunk_scan.cake 2>&1 | %FileCheck %s --check-prefix=VARLEN
// RUN: %cakec --verify-only -D VARLEN=1 -D WG=2 %kernels/kda/chunk_scan.cake 2>&1 | %FileCheck %s --check-prefix=VARLEN
// RUN: %cakec --verify-only -D VARLEN=1 -D VFIRST=0 -D USE_H0=0 -D STORE_HT=0 %kernels/kda/chunk_scan.cake 2>&1 | %FileCheck %s --check-prefix=VARLEN
// VARLEN-NOT: error
// VARLEN: verified
target sm_90a;
// RUN: %cakec --verify-only %kernels/kda/chunk_prep_tc.cake 2>&1 | %FileCheck %s --check-prefix=PREPTC
// PREPTC: verified
// PREPTC-NOT: warning
// RUN: %cakec --verify-only -D SAFE=0 %kernels/kda/chunk_prep_tc.cake 2>&1 | %FileCheck %s --check-prefix=PREPTC
// the tensor-core prep: f16 m16n8k16 mma for the off-diagonal L / P tiles, bf16 for w / u, ldmatrix (plain and
// transposed) from padded shared tiles, and nothing in local memory:
// RUN: %cakec --no-verify --emit=ptx %kernels/kda/chunk_prep_tc.cake -o - | %FileCheck %s --check-prefix=PREPTCPTX
// PREPTCPTX: .entry kda_chunk_prep_tc
// PREPTCPTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PREPTCPTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PREPTCPTX-DAG: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// PREPTCPTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// RUN: %cakec --no-verify --emit=ptx %kernels/kda/chunk_prep_tc.cake -o - | %FileCheck %s --check-prefix=PREPTCLOCAL
// PREPTCLOCAL-NOT: .local
// the same prep in 109056 B of shared memory (two blocks per SM: at most 113 KB each) and at most 128 registers
// (two blocks of 256 threads; bench/kda_build.sh caps the safe gate's build with --maxrregcount=128: ptxas
// spills the unbounded one's under that cap but needs fewer without); the safe gate's build sits at the cap,
// where ptxas spills three 64-bit values of straight-line code (24 bytes, once per block), the unbounded
// gate's has no spills:
// RUN: %cakec --verify-only %kernels/kda/chunk_prep_tc2.cake 2>&1 | %FileCheck %s --check-prefix=PREPTC2
// PREPTC2: verified
// PREPTC2-NOT: warning
// RUN: %cakec --verify-only -D SAFE=0 %kernels/kda/chunk_prep_tc2.cake 2>&1 | %FileCheck %s --check-prefix=PREPTC2
// RUN: %cakec -v --no-verify --maxrregcount=128 %kernels/kda/chunk_prep_tc2.cake -o %t.cubin 2>&1 | %FileCheck %s --check-prefix=PREPTC2CAP
// PREPTC2CAP: kda_chunk_prep_tc2 (sm_90a): {{([0-9]|[1-9][0-9]|1[01][0-9]|12[0-8])}} registers, {{.*}} {{([0-9]|[12][0-9]|3[0-2])}} bytes spill stores, {{([0-9]|[12][0-9]|3[0-2])}} bytes spill loads
// PREPTC2CAP: kda_chunk_prep_tc2: 109056 bytes dynamic shared memory
// RUN: %cakec -v --no-verify -D SAFE=0 %kernels/kda/chunk_prep_tc2.cake -o %t.cubin 2>&1 | %FileCheck %s --check-prefix=PREPTC2RES
// PREPTC2RES: kda_chunk_prep_tc2 (sm_90a): {{([0-9]|[1-9][0-9]|1[01][0-9]|12[0-8])}} registers, {{.*}} 0 bytes spill stores, 0 bytes spill loads
// PREPTC2RES: kda_chunk_prep_tc2: 109056 bytes dynamic shared memory
// RUN: %cakec --no-verify --emit=ptx %kernels/kda/chunk_prep_tc2.cake -o - | %FileCheck %s --check-prefix=PREPTC2PTX
// PREPTC2PTX: .entry kda_chunk_prep_tc2
// PREPTC2PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PREPTC2PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// the safe gate's diagonal blocks: butterflies over the channel quarters, 8-byte P stores
// PREPTC2PTX-DAG: shfl.sync.bfly.b32
// PREPTC2PTX-DAG: st.global.v2.b32
// PREPTC2PTX-NOT: .local
// the tf32 prep (safe gate only): every L / P tile as mma.sync m16n8k8 tf32 (the fragment elements truncated by
// tf32.rz, no conversion instruction; the exponentials one ex2.approx.ftz each), v copied to shared memory with cp.async, bf16 mma for w / u; two blocks per SM (at most
// 128 registers and 113 KB of shared memory each) without a register cap and without spills:
// RUN: %cakec --verify-only %kernels/kda/chunk_prep_tc3.cake 2>&1 | %FileCheck %s --check-prefix=PREPTC3
// PREPTC3: verified
// PREPTC3-NOT: warning
// RUN: %cakec -v --no-verify %kernels/kda/chunk_prep_tc3.cake -o %t.cubin 2>&1 | %FileCheck %s --check-prefix=PREPTC3RES
// PREPTC3RES: kda_chunk_prep_tc3 (sm_90a): {{([0-9]|[1-9][0-9]|1[01][0-9]|12[0-8])}} registers, {{.*}} 0 bytes spill stores, 0 bytes spill loads
// PREPTC3RES: kda_chunk_prep_tc3: 104960 bytes dynamic shared memory
// RUN: %cakec --no-verify --emit=ptx %kernels/kda/chunk_prep_tc3.cake -o - | %FileCheck %s --check-prefix=PREPTC3PTX --implicit-check-not=cvt.rn.tf32
// PREPTC3PTX: .entry kda_chunk_prep_tc3
// PREPTC3PTX-DAG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PREPTC3PTX-DAG: ex2.approx.ftz.f32
// PREPTC3PTX-DAG: cp.async.{{c[ag]}}.shared.global
// PREPTC3PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PREPTC3PTX-NOT: .local
