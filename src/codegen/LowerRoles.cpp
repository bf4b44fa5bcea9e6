// Builtin values (tid, block, lane, warp, ...), warp roles and elect - the SIMT side of roles.
//
//   tid.x ...     mov.u32 from %tid.x / %ctaid.x / %ntid.x / %nctaid.x / %nsmid; lane = %laneid;
//                 warp = tid.x >> 5 (blocks are 1-D: threads(n)).  tid.x, lane and warp are read once at
//                 kernel entry (a read under a branch would leave the register undefined on other paths).
//   role R[n] = warps(a..b) { body }
//                 warp-range guard: if (warp - a) <u (b - a) { body }, with R.index = (warp - a) / w,
//                 R.warp = (warp - a) % w, R.thread = (tid.x - 32a) % (32w) for w warps per instance.
//                 regs(r): setmaxnreg right after the guard (sm_90a / sm_100a, whole warpgroups):
//                 setmaxnreg.dec.sync.aligned.u32 r when r is below the per-thread allocation the kernel starts
//                 with, .inc when above (nothing when equal).  The entry then carries .minnctapersm 1, which
//                 caps that allocation at 64K / threads rounded down to a multiple of 8 (the cap setmaxnreg
//                 needs; entryRegisterAllocation) - e.g. 168 for 384 threads.
//   elect { body }  one lane of each warp that reaches it runs the body.  sm_90+: activemask + elect.sync
//                 (the hardware leader election); older targets: the lowest active lane (activemask ->
//                 isolate the lowest set bit -> bfind -> compare with %laneid).  Both correct under divergence.
//   cluster.*     builtins lower in LowerCluster.cpp.
#include "codegen/KernelLowering.h"

#include <cmath>

namespace cake::codegen {

Value KernelLowering::specialRegister(std::string_view name) {
  Value d = freshValue(ValueType::scalar(Scalar::U32));
  out_.inst("mov.u32 " + d.regs[0] + ", " + std::string(name));
  d.lowerBound = 0;   // every special register read here is in [0, 2^31)
  return d;
}

Value KernelLowering::warpIndex() {
  CAKE_ASSERT(warpId_.has_value());
  return *warpId_;
}

namespace {
const RoleStmt *roleOfMember(const Expr &e) {
  const auto *m = dynCast<MemberExpr>(&e);
  if (!m) return nullptr;
  const auto *n = dynCast<NameExpr>(m->base.get());
  if (!n || !n->decl || n->decl->declKind != DeclKind::Role) return nullptr;
  return static_cast<const RoleStmt *>(n->decl);
}
} // namespace

Value KernelLowering::lowerBuiltin(const Expr &e, BuiltinValue v) {
  // The builtin's type as sema gave it (u32 for tid/block/..., i32 for lane/warp/role members).
  auto retype = [&](Value x, Scalar s) {
    x.type = ValueType::scalar(s);
    return x;
  };
  Scalar semaScalar = Scalar::U32;
  if (e.type && e.type->isScalar() && e.type->scalar == ScalarKind::I32) semaScalar = Scalar::I32;
  switch (v) {
  case BuiltinValue::TidX: return retype(*tidX_, semaScalar);
  case BuiltinValue::TidY: return retype(specialRegister("%tid.y"), semaScalar);
  case BuiltinValue::TidZ: return retype(specialRegister("%tid.z"), semaScalar);
  case BuiltinValue::BlockX: return retype(specialRegister("%ctaid.x"), semaScalar);
  case BuiltinValue::BlockY: return retype(specialRegister("%ctaid.y"), semaScalar);
  case BuiltinValue::BlockZ: return retype(specialRegister("%ctaid.z"), semaScalar);
  case BuiltinValue::BlockDimX: return retype(specialRegister("%ntid.x"), semaScalar);
  case BuiltinValue::BlockDimY: return retype(specialRegister("%ntid.y"), semaScalar);
  case BuiltinValue::BlockDimZ: return retype(specialRegister("%ntid.z"), semaScalar);
  case BuiltinValue::GridDimX: return retype(specialRegister("%nctaid.x"), semaScalar);
  case BuiltinValue::GridDimY: return retype(specialRegister("%nctaid.y"), semaScalar);
  case BuiltinValue::GridDimZ: return retype(specialRegister("%nctaid.z"), semaScalar);
  case BuiltinValue::NumSms: return retype(specialRegister("%nsmid"), semaScalar);
  case BuiltinValue::Lane: return retype(*laneId_, Scalar::I32);
  case BuiltinValue::Warp: return retype(*warpId_, Scalar::I32);
  case BuiltinValue::Inf: return Value::ofConst(Scalar::FloatLit, ConstScalar::ofFloat(INFINITY));
  case BuiltinValue::ClusterRank: case BuiltinValue::ClusterX: case BuiltinValue::ClusterY: case BuiltinValue::ClusterZ:
    return retype(clusterBuiltin(v), semaScalar);
  case BuiltinValue::RoleIndex: case BuiltinValue::RoleWarp: case BuiltinValue::RoleThread: {
    const RoleStmt *r = roleOfMember(e);
    auto it = r ? env_.find(r) : env_.end();
    const RoleRange *rr = it != env_.end() ? std::get_if<RoleRange>(&it->second) : nullptr;
    if (!rr) {
      diags_.report(DiagKind::CodegenUnsupportedForm, e.range, "this role member");
      return placeholder(ValueType::scalar(Scalar::I32));
    }
    // Inside the role body (the only place sema allows members) the warp is at or past the role's first
    // warp, so both differences are non-negative and / % lower to shifts and masks.
    Value rel = binaryOp(BinaryOp::Sub, *warpId_, Value::ofInt(Scalar::I32, rr->firstWarp), e.range);
    if (!rel.isConst()) rel.lowerBound = 0;
    Value w = Value::ofInt(Scalar::I32, rr->warpsPerInstance);
    if (v == BuiltinValue::RoleIndex) return binaryOp(BinaryOp::Div, rel, w, e.range);
    if (v == BuiltinValue::RoleWarp) return binaryOp(BinaryOp::Rem, rel, w, e.range);
    Value t = binaryOp(BinaryOp::Sub, retype(*tidX_, Scalar::I32), Value::ofInt(Scalar::I32, rr->firstWarp * 32), e.range);
    if (!t.isConst()) t.lowerBound = 0;
    return binaryOp(BinaryOp::Rem, t, Value::ofInt(Scalar::I32, rr->warpsPerInstance * 32), e.range);
  }
  }
  return placeholder(ValueType::scalar(Scalar::U32));
}

void KernelLowering::lowerRole(const RoleStmt &s) {
  auto it = env_.find(&s);
  const RoleRange *rr = it != env_.end() ? std::get_if<RoleRange>(&it->second) : nullptr;
  if (!rr) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.nameRange, "this role (sema gave it no warp range)");
    return;
  }
  int64_t span = rr->warpsPerInstance * rr->instances;
  std::string end = out_.newLabel("end_role_" + s.name);
  bool coversAll = rr->firstWarp == 0 && span * 32 >= threads_;
  if (!coversAll) {
    // (warp - first) <u span  <=>  first <= warp < first + span
    std::string rel = out_.newReg(RegClass::B32), p = out_.newReg(RegClass::Pred);
    out_.inst("sub.s32 " + rel + ", " + warpId_->regs[0] + ", " + std::to_string(rr->firstWarp));
    out_.inst("setp.ge.u32 " + p + ", " + rel + ", " + std::to_string(span));
    out_.instGuarded(p, "bra " + end);
  }
  if (const RoleInfo *ri = info_.roleOf(&s); ri && ri->regs) emitSetMaxNReg(s, *ri->regs);
  lowerBlock(*s.body);
  out_.setLocation(s.range);
  out_.label(end);
}

bool KernelLowering::usesRegisterBudgets() const {
  for (const RoleInfo &r : info_.roles)
    if (r.regs) return true;
  return false;
}

int64_t KernelLowering::entryRegisterAllocation() const {
  int64_t perThread = 65536 / std::max<int64_t>(threads_, 32);
  return std::min<int64_t>(255, perThread / 8 * 8);
}

void KernelLowering::emitSetMaxNReg(const RoleStmt &s, int64_t regs) {
  SourceRange where = s.nameRange;
  for (const auto &a : s.attrs)
    if (a.name == "regs") where = a.range;
  SourceRange saved = out_.location();
  out_.setLocation(where);
  int64_t alloc = entryRegisterAllocation();
  if (regs < alloc) out_.inst("setmaxnreg.dec.sync.aligned.u32 " + std::to_string(regs));
  else if (regs > alloc) out_.inst("setmaxnreg.inc.sync.aligned.u32 " + std::to_string(regs));
  out_.setLocation(saved);
}

void KernelLowering::lowerElect(const ElectStmt &s) {
  std::string end = out_.newLabel("end_elect");
  if (archIn(arch_, archsFrom(Arch::SM90))) {
    std::string mask = out_.newReg(RegClass::B32), p = out_.newReg(RegClass::Pred);
    out_.inst("activemask.b32 " + mask);
    out_.inst("elect.sync _|" + p + ", " + mask);
    out_.instGuarded("!" + p, "bra " + end);
    ++electDepth_;
    lowerBlock(*s.body);
    --electDepth_;
    out_.setLocation(s.range);
    out_.label(end);
    return;
  }
  std::string mask = out_.newReg(RegClass::B32), neg = out_.newReg(RegClass::B32), low = out_.newReg(RegClass::B32),
              idx = out_.newReg(RegClass::B32), p = out_.newReg(RegClass::Pred);
  out_.inst("activemask.b32 " + mask);
  out_.inst("neg.s32 " + neg + ", " + mask);
  out_.inst("and.b32 " + low + ", " + mask + ", " + neg);
  out_.inst("bfind.u32 " + idx + ", " + low);
  out_.inst("setp.ne.u32 " + p + ", " + idx + ", " + laneId_->regs[0]);
  out_.instGuarded(p, "bra " + end);
  ++electDepth_;
  lowerBlock(*s.body);
  --electDepth_;
  out_.setLocation(s.range);
  out_.label(end);
}

} // namespace cake::codegen
