// mbarrier transaction counts, arrivals on a cluster peer's barrier and the sm_90 wait loop
// (docs/hopper.md "mbarriers").
//
//   arrive M[s] expect_tx(B)      mbarrier.arrive.expect_tx.shared::cta.b64 state, [M + 8s], B
//                                 (one arrival + B expected transaction bytes for the current phase)
//   arrive M[s] expect_tx(B) cta(r)
//                                 mapa.shared::cluster.u32 remote, [M + 8s], r
//                                 mbarrier.arrive.expect_tx.shared::cluster.b64 _, [remote], B
//                                 (arrival + B expected bytes on the barrier at the same offset in cluster CTA
//                                 r - the form CUTLASS's ClusterTransactionBarrier::arrive_and_expect_tx(bytes,
//                                 cta_id) uses; a shared::cluster arrive must discard its state: `_`)
//   mbarrier.expect_tx M[s], B    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [M + 8s], B   (no arrival)
//   arrive M[s] cta(r)            mapa.shared::cluster.u32 remote, [M + 8s], r
//                                 mbarrier.arrive.shared::cluster.b64 _, [remote]
//                                 (the barrier at the same offset in cluster CTA r, default .release
//                                 semantics, as CUTLASS's ClusterBarrier::arrive(cta_id); an explicit
//                                 .release.cluster would add a cluster-scope fence per arrive, and the
//                                 stage's reads are wgmma reads already retired by wgmma.wait before it)
//   wait M[s] parity(p)  (sm_90+) a loop on mbarrier.try_wait.parity.shared::cta.b64: try_wait suspends the
//                                 thread for a hardware-chosen time before it answers false, so the loop
//                                 spins far less than a test_wait loop.
// Byte counts are u32 immediates when constant, else a .b32 register.
#include "codegen/KernelLowering.h"

namespace cake::codegen {

namespace {
// A .b32 register or immediate for a transaction byte count or CTA rank.
std::string u32Operand(KernelLowering &L, const Value &v, SourceRange where) {
  if (auto c = L.constInt(v)) return std::to_string(static_cast<uint32_t>(*c));
  Value u = v;
  if (concreteScalar(v.type.elem) == Scalar::I64) u = L.convert(v, ValueType::scalar(Scalar::U32), where);
  return L.reg(u);
}

// The shared::cluster address of the barrier at `a` in cluster CTA `rank` (mapa.shared::cluster).
std::string mapaBarrier(KernelLowering &L, const Address &a, const Value &rank, SourceRange where) {
  std::string r = u32Operand(L, rank, where);
  PtxWriter &out = L.out();
  std::string local = out.newReg(RegClass::B32), remote = out.newReg(RegClass::B32);
  if (a.offset == 0) out.inst("mov.b32 " + local + ", " + a.base);
  else out.inst("add.s32 " + local + ", " + a.base + ", " + std::to_string(a.offset));
  out.inst("mapa.shared::cluster.u32 " + remote + ", " + local + ", " + r);
  return remote;
}
} // namespace

void KernelLowering::lowerArriveExpectTx(const OpStmt &s, const Clause &expectTx) {
  if (expectTx.args.size() != 1 || s.dsts.size() != 1) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "this form of arrive .. expect_tx(..)");
    return;
  }
  auto a = mbarrierAddress(*s.dsts[0]);
  if (!a) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "this arrive operand");
    return;
  }
  std::string bytes = u32Operand(*this, lowerExpr(*expectTx.args[0]), expectTx.range);
  const Clause *cta = nullptr;
  for (const auto &c : s.clauses)
    if (c.name == "cta") cta = &c;
  if (cta) {   // the peer's barrier: mapa, then a shared::cluster arrive whose state is discarded
    if (cta->args.size() != 1) {
      diags_.report(DiagKind::CodegenUnsupportedForm, cta->range, "this form of arrive .. cta(..)");
      return;
    }
    std::string remote = mapaBarrier(*this, *a, lowerExpr(*cta->args[0]), cta->range);
    out_.inst("mbarrier.arrive.expect_tx.shared::cluster.b64 _, [" + remote + "], " + bytes);
    return;
  }
  std::string state = out_.newReg(RegClass::B64);
  out_.inst("mbarrier.arrive.expect_tx.shared::cta.b64 " + state + ", " + a->str() + ", " + bytes);
}

void KernelLowering::lowerMbarrierExpectTx(const OpStmt &s) {
  // mbarrier.expect_tx M[s], BYTES: the parser puts both operands in dsts.
  if (s.dsts.size() != 2) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "mbarrier.expect_tx other than 'mbarrier.expect_tx M[s], BYTES'");
    return;
  }
  auto a = mbarrierAddress(*s.dsts[0]);
  if (!a) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "this mbarrier.expect_tx operand");
    return;
  }
  std::string bytes = u32Operand(*this, lowerExpr(*s.dsts[1]), s.dsts[1]->range);
  out_.inst("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 " + a->str() + ", " + bytes);
}

void KernelLowering::lowerArriveRemote(const OpStmt &s, const Clause &cta) {
  if (cta.args.size() != 1 || s.dsts.size() != 1) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "this form of arrive .. cta(..)");
    return;
  }
  auto a = mbarrierAddress(*s.dsts[0]);
  if (!a) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "this arrive operand");
    return;
  }
  std::string remote = mapaBarrier(*this, *a, lowerExpr(*cta.args[0]), cta.range);
  out_.inst("mbarrier.arrive.shared::cluster.b64 _, [" + remote + "]");
}

void KernelLowering::emitMbarrierWaitLoop(const Address &bar, const std::string &parity) {
  std::string loop = out_.newLabel("wait"), done = out_.newReg(RegClass::Pred);
  out_.label(loop);
  out_.inst("mbarrier.try_wait.parity.shared::cta.b64 " + done + ", " + bar.str() + ", " + parity);
  out_.instGuarded("!" + done, "bra " + loop);
}

} // namespace cake::codegen
