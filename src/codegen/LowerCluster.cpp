// Thread-block clusters (sm_90+): the cluster barrier and the cluster builtins (docs/hopper.md "Clusters").
//
//   cluster.sync      barrier.cluster.arrive.release + barrier.cluster.wait.acquire: every thread of every CTA
//                     of the cluster; release/acquire make shared-memory writes (mbarrier.init included)
//                     visible cluster-wide.  The non-.aligned forms: correct even when a warp is diverged.
//   cluster.arrive    barrier.cluster.arrive.release         cluster.wait  barrier.cluster.wait.acquire
//   cluster.rank      %cluster_ctarank          cluster.x/y/z  %cluster_ctaid.x/y/z
// The cluster shape itself is the entry directive .reqnctapercluster X, Y, Z (KernelLowering.cpp) and the
// manifest's launch.cluster, which the runtime passes as CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION.
#include "codegen/KernelLowering.h"

#include "frontend/Ops.h"

namespace cake::codegen {

void KernelLowering::lowerClusterBarrier(const OpStmt &s) {
  switch (s.op->id) {
  case OpId::ClusterSync:
    out_.inst("barrier.cluster.arrive.release");
    out_.inst("barrier.cluster.wait.acquire");
    return;
  case OpId::ClusterArrive: out_.inst("barrier.cluster.arrive.release"); return;
  case OpId::ClusterWait: out_.inst("barrier.cluster.wait.acquire"); return;
  default: break;
  }
  diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "the operation '" + s.name + "'");
}

Value KernelLowering::clusterBuiltin(BuiltinValue v) {
  switch (v) {
  case BuiltinValue::ClusterRank: return specialRegister("%cluster_ctarank");
  case BuiltinValue::ClusterX: return specialRegister("%cluster_ctaid.x");
  case BuiltinValue::ClusterY: return specialRegister("%cluster_ctaid.y");
  case BuiltinValue::ClusterZ: return specialRegister("%cluster_ctaid.z");
  default: break;
  }
  CAKE_INTERNAL_ERROR("clusterBuiltin called with a builtin that is not a cluster builtin");
}

} // namespace cake::codegen
