// Barriers: syncthreads, named barriers and mbarriers (the sm_80 forms).
//
//   syncthreads              bar.sync 0
//   syncwarp / syncwarp(M)   bar.warp.sync 0xffffffff / bar.warp.sync M
//   sync NB / arrive NB      bar.sync id, threads / bar.arrive id, threads   (from sema's id(..) threads(..))
//   sync NB[i] / arrive NB[i] the same with id + i (an immediate for a constant i, else a register)
//   mbarrier.init M          mbarrier.init.shared.b64 [M + 8i], arrivals   for every barrier i of the array
//   arrive M[s]              mbarrier.arrive.shared.b64 state, [M + 8s]
//   wait M[s] parity(p)      a spin loop on mbarrier.test_wait.parity.shared.b64 (sm_80 .. sm_89); on sm_90+
//                            the try_wait.parity loop of LowerMbarrier.cpp
// arrive with expect_tx(..) or cta(..) (sm_90+) lowers in LowerMbarrier.cpp (docs/hopper.md).
#include "codegen/KernelLowering.h"

#include <cstdio>

namespace cake::codegen {

namespace {
// `epi` or `epi[i]` naming a named barrier.
bool isNamedBarrierOperand(const Expr &e) {
  const Expr *base = &e;
  if (const auto *ix = dynCast<IndexExpr>(base)) base = ix->base.get();
  const auto *n = dynCast<NameExpr>(base);
  return n && n->decl && n->decl->declKind == DeclKind::Barrier;
}

const Clause *findClause(const OpStmt &s, std::string_view name) {
  for (const auto &c : s.clauses)
    if (c.name == name) return &c;
  return nullptr;
}
} // namespace

void KernelLowering::lowerSyncthreads(const OpStmt &) { out_.inst("bar.sync 0"); }

void KernelLowering::lowerSyncwarp(const OpStmt &s) {
  int64_t mask = 0xffffffffLL;
  if (!s.dsts.empty()) {
    std::optional<int64_t> c = constIntExpr(*s.dsts[0]);
    if (!c) {
      diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "a syncwarp mask that is not a constant");
      return;
    }
    mask = *c;
  }
  char text[16];
  std::snprintf(text, sizeof text, "0x%08llx", static_cast<unsigned long long>(mask & 0xffffffffLL));
  out_.inst(std::string("bar.warp.sync ") + text);
}

std::optional<Address> KernelLowering::mbarrierAddress(const Expr &e) {
  const Expr *base = &e;
  const Expr *index = nullptr;
  if (const auto *ix = dynCast<IndexExpr>(&e)) {
    base = ix->base.get();
    if (ix->items.size() != 1 || ix->items[0].kind != IndexItem::Point) return std::nullopt;
    index = ix->items[0].start.get();
  }
  const auto *n = dynCast<NameExpr>(base);
  if (!n || !n->decl) return std::nullopt;
  auto it = env_.find(n->decl);
  if (it == env_.end()) return std::nullopt;
  const auto *mb = std::get_if<MBarrierArray>(&it->second);
  if (!mb) return std::nullopt;
  if (!index) return Address{smemBase(), mb->offset};
  Value iv = lowerExpr(*index);
  if (auto c = constInt(iv)) return Address{smemBase(), mb->offset + *c * 8};
  std::string off = out_.newReg(RegClass::B32), a = out_.newReg(RegClass::B32);
  Value i32 = concreteScalar(iv.type.elem) == Scalar::I64 ? convert(iv, ValueType::scalar(Scalar::I32), e.range) : iv;
  out_.inst("shl.b32 " + off + ", " + reg(i32) + ", 3");
  out_.inst("add.s32 " + a + ", " + smemBase() + ", " + off);
  return Address{a, mb->offset};
}

void KernelLowering::lowerNamedBarrier(const OpStmt &s, bool arriveOnly) {
  const NamedBarrier *nb = nullptr;
  const Expr *index = nullptr;   // NAME[i] of a barrier array
  if (s.dsts.size() == 1) {
    const Expr *base = s.dsts[0].get();
    if (const auto *ix = dynCast<IndexExpr>(base); ix && ix->items.size() == 1 && ix->items[0].kind == IndexItem::Point) {
      base = ix->base.get();
      index = ix->items[0].start.get();
    }
    if (const auto *n = dynCast<NameExpr>(base); n && n->decl) {
      auto it = env_.find(n->decl);
      if (it != env_.end()) nb = std::get_if<NamedBarrier>(&it->second);
    }
  }
  if (!nb) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "this barrier operand");
    return;
  }
  std::string id = std::to_string(nb->id);
  if (index) {   // id + i: an immediate when i is a constant, else a register (bar.sync takes either)
    Value iv = lowerExpr(*index);
    if (auto c = constInt(iv)) {
      id = std::to_string(nb->id + *c);
    } else {
      Value i32 = concreteScalar(iv.type.elem) == Scalar::I64 ? convert(iv, ValueType::scalar(Scalar::I32), index->range) : iv;
      id = out_.newReg(RegClass::B32);
      out_.inst("add.s32 " + id + ", " + reg(i32) + ", " + std::to_string(nb->id));
    }
  }
  out_.inst(std::string(arriveOnly ? "bar.arrive " : "bar.sync ") + id + ", " + std::to_string(nb->threads));
}

void KernelLowering::lowerMbarrierInit(const OpStmt &s) {
  for (const auto &d : s.dsts) {
    const auto *n = dynCast<NameExpr>(d.get());
    auto it = n && n->decl ? env_.find(n->decl) : env_.end();
    const MBarrierArray *mb = it != env_.end() ? std::get_if<MBarrierArray>(&it->second) : nullptr;
    if (!mb) {
      if (auto a = mbarrierAddress(*d)) {   // a single stage: mbarrier.init full[s]
        const auto *ix = dynCast<IndexExpr>(d.get());
        const auto *bn = ix ? dynCast<NameExpr>(ix->base.get()) : nullptr;
        const MBarrierArray *arr = bn ? std::get_if<MBarrierArray>(&env_.find(bn->decl)->second) : nullptr;
        out_.inst("mbarrier.init.shared.b64 " + a->str() + ", " + std::to_string(arr ? arr->arrivals : 1));
        continue;
      }
      diags_.report(DiagKind::CodegenUnsupportedForm, d->range, "this mbarrier.init operand");
      continue;
    }
    for (int64_t i = 0; i < mb->count; ++i)
      out_.inst("mbarrier.init.shared.b64 " + Address{smemBase(), mb->offset + 8 * i}.str() + ", " +
                std::to_string(mb->arrivals));
  }
}

void KernelLowering::lowerArrive(const OpStmt &s) {
  if (s.dsts.size() == 1)
    if (isNamedBarrierOperand(*s.dsts[0])) {
      lowerNamedBarrier(s, true);
      return;
    }
  if (const Clause *c = findClause(s, "expect_tx")) {
    lowerArriveExpectTx(s, *c);   // also with cta(..): the peer's barrier (LowerMbarrier.cpp)
    return;
  }
  if (const Clause *c = findClause(s, "cta")) {
    lowerArriveRemote(s, *c);
    return;
  }
  for (const auto &d : s.dsts) {
    auto a = mbarrierAddress(*d);
    if (!a) {
      diags_.report(DiagKind::CodegenUnsupportedForm, d->range, "this arrive operand");
      continue;
    }
    std::string state = out_.newReg(RegClass::B64);
    out_.inst("mbarrier.arrive.shared.b64 " + state + ", " + a->str());
  }
}

void KernelLowering::lowerWait(const OpStmt &s) {
  const Clause *par = findClause(s, "parity");
  if (s.dsts.size() != 1 || !par || par->args.size() != 1) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "this form of wait");
    return;
  }
  auto a = mbarrierAddress(*s.dsts[0]);
  if (!a) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "this wait operand");
    return;
  }
  Value p = lowerExpr(*par->args[0]);
  std::string parity;
  if (auto c = constInt(p)) {
    parity = std::to_string(*c & 1);
  } else {
    Value u = concreteScalar(p.type.elem) == Scalar::I64 ? convert(p, ValueType::scalar(Scalar::U32), s.range) : p;
    parity = out_.newReg(RegClass::B32);
    out_.inst("and.b32 " + parity + ", " + reg(u) + ", 1");
  }
  if (archIn(arch_, archsFrom(Arch::SM90))) {
    emitMbarrierWaitLoop(*a, parity);
    return;
  }
  std::string loop = out_.newLabel("wait"), done = out_.newReg(RegClass::Pred);
  out_.label(loop);
  out_.inst("mbarrier.test_wait.parity.shared.b64 " + done + ", " + a->str() + ", " + parity);
  out_.instGuarded("!" + done, "bra " + loop);
}

} // namespace cake::codegen
