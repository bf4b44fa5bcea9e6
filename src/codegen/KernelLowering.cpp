// KernelLowering, the kernel frame: entry signature and parameter loads, bindings for shared arrays and
// barriers from sema's KernelInfo, expression dispatch, let/var/assign, lvalues and operation dispatch.
// The per-construct lowerings live in the Lower*.cpp files (see KernelLowering.h).
//
// Parameter loads happen once at the top of the kernel: each tensor's pointer is converted to a global
// address (cvta.to.global.u64) and its byte strides are computed from the shape variables in 64-bit, so
// address arithmetic inside loops is a few multiply-adds on ready registers.
#include "codegen/KernelLowering.h"

#include "frontend/ASTPrinter.h"
#include "frontend/ConstEval.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

namespace cake::codegen {

std::string Address::str() const {
  if (offset == 0) return "[" + base + "]";
  // PTX spells a negative displacement [%r+-16] ([%r-16] is a syntax error for ptxas).
  return "[" + base + "+" + std::to_string(offset) + "]";
}

KernelLowering::KernelLowering(const Kernel &kernel, const KernelInfo &info, Arch arch, PtxWriter &out,
                               DiagnosticEngine &diags, KernelManifest &manifest)
    : kernel_(kernel), info_(info), arch_(arch), out_(out), diags_(diags), manifest_(manifest) {}

// ------------------------------------------------------------------------------------------- the kernel
void KernelLowering::lower() {
  threads_ = info_.threads > 0 ? info_.threads : 32;
  fillManifest();
  out_.beginKernel(entrySignature());
  out_.setLocation(kernel_.nameRange);
  declareParams();
  // Read once at entry: a first read under a branch would leave the register undefined on other paths.
  tidX_ = specialRegister("%tid.x");
  tidX_->upperBound = threads_ - 1;
  laneId_ = specialRegister("%laneid");
  laneId_->type = ValueType::scalar(Scalar::I32);
  laneId_->upperBound = 31;
  warpId_ = freshValue(ValueType::scalar(Scalar::I32));
  out_.inst("shr.u32 " + warpId_->regs[0] + ", " + tidX_->regs[0] + ", 5");
  warpId_->lowerBound = 0;
  warpId_->upperBound = (threads_ - 1) / 32;
  if (!info_.shared.empty() || !info_.mbarriers.empty()) {
    smemBaseReg_ = out_.newReg(RegClass::B32);
    out_.inst("mov.u32 " + smemBaseReg_ + ", cake_smem");
  }
  bindShared();
  if (kernel_.body) lowerBlock(*kernel_.body);
  out_.setLocation(kernel_.range);
  out_.inst("ret");
  out_.endKernel();
}

std::string KernelLowering::entrySignature() {
  std::string sig = ".visible .entry " + kernel_.name + "(";
  // Order: tensor pointers, shape variables, scalars (docs/codegen.md "Kernel ABI").
  std::vector<std::string> params;
  for (const auto &slot : manifest_.abi) {
    std::string name;
    if (slot.kind == ManifestAbiSlot::TensorMap) {   // a CUtensorMap by value (__grid_constant__)
      params.push_back(".param .align 64 .b8 cake_tmap_" + manifest_.params[slot.index].name + "[128]");
      continue;
    }
    if (slot.kind == ManifestAbiSlot::ShapeVar) name = "cake_shape_" + manifest_.shapeVars[slot.index].name;
    else name = "cake_param_" + manifest_.params[slot.index].name;
    params.push_back(".param ." + slot.ptxType + " " + name);
  }
  for (size_t i = 0; i < params.size(); ++i) sig += "\n\t" + params[i] + (i + 1 < params.size() ? "," : "");
  sig += "\n)\n.maxntid " + std::to_string(threads_) + ", 1, 1";
  // Role register budgets (setmaxnreg) need a register cap at entry: one block per SM caps the allocation
  // at 64K / threads (entryRegisterAllocation), which the roles then move between warpgroups.
  if (usesRegisterBudgets()) sig += "\n.minnctapersm 1";
  if (info_.hasCluster)
    sig += "\n.reqnctapercluster " + std::to_string(info_.cluster[0]) + ", " + std::to_string(info_.cluster[1]) + ", " +
           std::to_string(info_.cluster[2]);
  return sig;
}

namespace {
std::string ptxParamType(Scalar s) {
  switch (s) {
  case Scalar::I32: return "s32";
  case Scalar::U32: return "u32";
  case Scalar::I64: return "s64";
  case Scalar::F32: return "f32";
  case Scalar::F16:
  case Scalar::BF16: return "b16";
  case Scalar::Pred: return "u8";
  default: return "b32";
  }
}

std::string locationText(const DiagnosticEngine &diags, SourceRange r) {
  if (!r.valid()) return "";
  LineCol lc = diags.sources().lineCol(r.begin);
  return std::string(diags.sources().name(r.begin.file)) + ":" + std::to_string(lc.line) + ":" +
         std::to_string(lc.column);
}

const Attr *findAttr(const std::vector<Attr> &attrs, std::string_view name) {
  for (const auto &a : attrs)
    if (a.name == name) return &a;
  return nullptr;
}
} // namespace

void KernelLowering::fillManifest() {
  manifest_.name = kernel_.name;
  manifest_.entry = kernel_.name;
  manifest_.loc = locationText(diags_, kernel_.nameRange);
  for (const auto &ct : kernel_.ctParams)
    if (ct->isType) manifest_.ctTypeParams.push_back({ct->name, ct->typeValue});
    else if (ct->value) manifest_.ctParams.push_back({ct->name, *ct->value});
  for (size_t i = 0; i < kernel_.params.size(); ++i) {
    const Param &p = *kernel_.params[i];
    ManifestParam mp;
    mp.name = p.name;
    const TypeExpr *t = p.declaredType.get();
    mp.dtype = t ? t->baseName : "";
    mp.isTensor = t && !t->dimGroups.empty();
    if (mp.isTensor) {
      for (const auto &d : t->dimGroups.front()) mp.dims.push_back(printExpr(*d));
      if (const Attr *st = findAttr(p.attrs, "stride"))
        for (const auto &a : st->args) mp.strides.push_back(printExpr(*a.value));
      if (const TensorParamInfo *tp = info_.tensorParamOf(&p)) {
        mp.align = tp->alignment;
        if (tp->tma) {   // box values are sema's constants (after -D), so the manifest needs no ct names
          mp.tma = true;
          for (int64_t b : tp->box) mp.tmaBox.push_back(std::to_string(b));
          mp.tmaSwizzle = tp->swizzleBytes ? std::to_string(tp->swizzleBytes) + "B" : "none";
        }
      }
    }
    manifest_.params.push_back(std::move(mp));
  }
  for (const auto &sv : kernel_.shapeVars) {
    ManifestShapeVar ms;
    ms.name = sv->name;
    for (size_t i = 0; i < kernel_.params.size() && ms.param < 0; ++i) {
      const TypeExpr *t = kernel_.params[i]->declaredType.get();
      if (!t || t->dimGroups.empty()) continue;
      for (size_t d = 0; d < t->dimGroups.front().size(); ++d) {
        const auto *n = dynCast<NameExpr>(t->dimGroups.front()[d].get());
        if (n && n->decl == sv.get()) {
          ms.param = static_cast<int>(i);
          ms.dim = static_cast<int>(d);
          break;
        }
      }
    }
    manifest_.shapeVars.push_back(std::move(ms));
  }
  // ABI order: tensors, shape variables, scalars.
  for (size_t i = 0; i < manifest_.params.size(); ++i)
    if (manifest_.params[i].isTensor) manifest_.abi.push_back({ManifestAbiSlot::Pointer, static_cast<int>(i), "u64"});
  for (size_t i = 0; i < manifest_.shapeVars.size(); ++i)
    manifest_.abi.push_back({ManifestAbiSlot::ShapeVar, static_cast<int>(i), "s32"});
  for (size_t i = 0; i < manifest_.params.size(); ++i) {
    if (manifest_.params[i].isTensor) continue;
    auto vt = parseValueTypeName(manifest_.params[i].dtype);
    manifest_.abi.push_back({ManifestAbiSlot::Scalar, static_cast<int>(i), ptxParamType(vt ? vt->elem : Scalar::I32)});
  }
  // TMA descriptors last: one 128-byte CUtensorMap per tensor with tma(..) (docs/manifest.md, docs/hopper.md).
  for (size_t i = 0; i < manifest_.params.size(); ++i)
    if (manifest_.params[i].tma) manifest_.abi.push_back({ManifestAbiSlot::TensorMap, static_cast<int>(i), "b8"});
  for (size_t i = 0; i < info_.grid.size() && i < 3; ++i) manifest_.grid[i] = printExpr(*info_.grid[i]);
  manifest_.block[0] = std::to_string(threads_);
  if (info_.hasCluster) {
    manifest_.cluster = std::array<std::string, 3>{std::to_string(info_.cluster[0]), std::to_string(info_.cluster[1]),
                                                   std::to_string(info_.cluster[2])};
  }
  manifest_.dynamicSmem = info_.sharedBytes;
  for (const Expr *r : info_.requirements) manifest_.requires_.push_back({printExpr(*r), locationText(diags_, r->range)});
}

// The shape variables a requires clause pins to a compile-time value (`requires(D == HD)`, either side): the
// runtime refuses a launch whose shapes break a requires clause, so inside the kernel such a variable is that
// constant, and the strides and bounds built from it fold (an X[b, r, c] address of a D = HD tensor becomes a
// base plus constant offsets instead of a 64-bit multiply chain per access).
std::unordered_map<const Decl *, int64_t> KernelLowering::pinnedShapeVars() const {
  std::unordered_map<const Decl *, int64_t> pinned;
  ConstEvaluator ce;
  for (const Expr *r : info_.requirements) {
    if (r->kind != ExprKind::Binary) continue;
    const auto &eq = static_cast<const BinaryExpr &>(*r);
    if (eq.op != BinaryOp::Eq) continue;
    for (auto [name, other] : {std::pair{eq.lhs.get(), eq.rhs.get()}, std::pair{eq.rhs.get(), eq.lhs.get()}}) {
      if (name->kind != ExprKind::Name) continue;
      const Decl *d = static_cast<const NameExpr &>(*name).decl;
      bool isShapeVar = false;
      for (const auto &sv : kernel_.shapeVars) isShapeVar = isShapeVar || sv.get() == d;
      auto value = ce.evaluate(*other).optional();
      if (isShapeVar && value && *value >= 0 && *value < (int64_t{1} << 31)) pinned.emplace(d, *value);
    }
  }
  return pinned;
}

void KernelLowering::declareParams() {
  // Tensors first (ABI order), then shape variables, then scalars.
  auto pinned = pinnedShapeVars();
  for (const auto &slot : manifest_.abi) {
    if (slot.kind != ManifestAbiSlot::ShapeVar) continue;
    const ShapeVar *sv = kernel_.shapeVars[slot.index].get();
    if (auto it = pinned.find(sv); it != pinned.end()) {
      env_[sv] = Value::ofInt(Scalar::I32, it->second);
      continue;
    }
    std::string r = out_.newReg(RegClass::B32);
    out_.inst("ld.param.u32 " + r + ", [cake_shape_" + sv->name + "]");
    Value dim = Value::ofRegs(ValueType::scalar(Scalar::I32), {r});
    dim.lowerBound = 0;   // a tensor dimension
    env_[sv] = dim;
  }
  for (size_t i = 0; i < kernel_.params.size(); ++i) {
    const Param &p = *kernel_.params[i];
    if (manifest_.params[i].isTensor) continue;
    auto vt = p.declaredType ? parseValueTypeName(p.declaredType->baseName) : std::nullopt;
    if (!vt || !vt->isScalar()) {
      diags_.report(DiagKind::CodegenUnsupportedForm, p.nameRange, "a parameter of this type");
      continue;
    }
    std::string name = "[cake_param_" + p.name + "]";
    if (vt->elem == Scalar::Pred) {
      std::string b = out_.newReg(RegClass::B16), pr = out_.newReg(RegClass::Pred);
      out_.inst("ld.param.u8 " + b + ", " + name);
      out_.inst("setp.ne.b16 " + pr + ", " + b + ", 0");
      env_[&p] = Value::ofRegs(*vt, {pr});
      continue;
    }
    Value v = freshValue(*vt);
    out_.inst("ld.param." + ptxParamType(vt->elem) + " " + v.regs[0] + ", " + name);
    env_[&p] = v;
  }
  for (size_t i = 0; i < kernel_.params.size(); ++i)
    if (manifest_.params[i].isTensor) setupGlobalTensor(*kernel_.params[i], i);
}

void KernelLowering::bindShared() {
  for (const SharedAllocation &a : info_.shared) {
    if (!a.decl) continue;
    SharedArray arr;
    arr.offset = a.offset;
    arr.swizzleBytes = static_cast<int>(a.swizzleBytes);
    arr.tmemColumns = a.tmemColumns;
    const TypeExpr *t = a.decl->declaredType.get();
    auto vt = t ? parseValueTypeName(t->baseName) : std::nullopt;
    if (!vt || !vt->isScalar()) {
      diags_.report(DiagKind::CodegenUnsupportedForm, a.decl->nameRange, "a shared array of this element type");
      continue;
    }
    arr.elem = vt->elem;
    ConstEvaluator ce;
    for (const auto &g : t->dimGroups) {
      std::vector<int64_t> dims;
      for (const auto &d : g) dims.push_back(ce.evaluate(*d).optional().value_or(1));
      arr.groups.push_back(std::move(dims));
    }
    env_[a.decl] = arr;
  }
  for (const MBarrierInfo &m : info_.mbarriers)
    if (m.decl) env_[m.decl] = MBarrierArray{m.offset, m.count, m.arrivals};
  for (const NamedBarrierInfo &b : info_.namedBarriers)
    if (b.decl) env_[b.decl] = NamedBarrier{b.id, b.threads, b.count};
  for (const RoleInfo &r : info_.roles)
    if (r.decl) env_[r.decl] = RoleRange{r.firstWarp, r.warpsPerInstance(), r.instances};
}

// ------------------------------------------------------------------------------------------- values
Value KernelLowering::freshValue(const ValueType &t) {
  auto st = storageOf(t);
  if (!st) {
    diags_.report(DiagKind::CodegenUnsupportedForm, out_.location(), "values of type " + typeName(t) + " in registers");
    return Value::ofRegs(ValueType::scalar(Scalar::I32), {out_.newReg(RegClass::B32)});
  }
  std::vector<std::string> regs;
  for (unsigned i = 0; i < st->regs; ++i) regs.push_back(out_.newReg(st->cls));
  return Value::ofRegs(t, std::move(regs));
}

Value KernelLowering::placeholder(const ValueType &t) {
  ValueType c = t;
  c.elem = concreteScalar(c.elem);
  if (!storageOf(c)) c = ValueType::scalar(Scalar::I32);
  if (c.isScalar()) return Value::ofConst(c.elem, ConstScalar{});
  return freshValue(c);
}

std::pair<std::string, int64_t> KernelLowering::affineParts(const Value &v) const {
  if (v.isConst() || v.regs.size() != 1) return {"", 0};
  if (!v.affineBase.empty()) return {v.affineBase, v.affineOffset};
  if (mutableRegs_.count(v.regs[0])) return {"", 0};
  return {v.regs[0], 0};
}

std::optional<int64_t> KernelLowering::constInt(const Value &v) const {
  if (!v.isConst() || !v.type.isScalar() || isFloat(v.type.elem)) return std::nullopt;
  return v.constant->i;
}

std::optional<int64_t> KernelLowering::constIntExpr(const Expr &e) {
  ConstEvaluator ce;
  if (auto r = ce.evaluate(e).optional()) return r;
  return constInt(lowerExpr(e));
}

Value KernelLowering::adapt(const Value &v, const ValueType &t) {
  if (!v.type.isScalar() || !isUntyped(v.type.elem)) return v;
  if (!v.isConst()) return v;
  ValueType target = t;
  if (target.isVector() || target.isFrag()) return v;   // splats are handled by the caller
  Scalar to = concreteScalar(target.elem);
  return Value::ofConst(to, convertConst(v.type.elem, to, *v.constant));
}

std::string KernelLowering::reg(const Value &v) {
  if (!v.isConst()) {
    CAKE_ASSERT(!v.regs.empty());
    return v.regs[0];
  }
  Scalar s = concreteScalar(v.type.elem);
  ConstScalar c = isUntyped(v.type.elem) ? convertConst(v.type.elem, s, *v.constant) : *v.constant;
  RegClass cls = scalarRegClass(s);
  std::string r = out_.newReg(cls);
  if (cls == RegClass::Pred) out_.inst("setp.ne.s32 " + r + ", " + std::string(c.i ? "1" : "0") + ", 0");
  else out_.inst("mov." + std::string(ptxBitType(s)) + " " + r + ", " + ptxImmediate(s, c));
  return r;
}

std::string KernelLowering::operand(const Value &v) {
  if (!v.isConst()) return reg(v);
  Scalar s = concreteScalar(v.type.elem);
  if (scalarBits(s) == 16 || s == Scalar::Pred) return reg(v);   // no 16-bit float or pred immediates
  ConstScalar c = isUntyped(v.type.elem) ? convertConst(v.type.elem, s, *v.constant) : *v.constant;
  return ptxImmediate(s, c);
}

void KernelLowering::copyInto(const Value &src, Value &dst) {
  if (dst.type.isFrag() && src.type.isScalar()) {
    fillFragment(dst, src);
    return;
  }
  if (dst.type.isVector() && src.type.isScalar()) {   // splat a scalar into every lane
    Value e = adapt(src, ValueType::scalar(dst.type.elem));
    for (unsigned i = 0; i < dst.type.lanes; ++i) setVectorElement(dst, i, e);
    return;
  }
  Value s = src.isConst() ? adapt(src, dst.type) : src;
  if (s.isConst()) {
    Scalar t = concreteScalar(dst.type.elem);
    if (t == Scalar::Pred) {
      out_.inst("setp.ne.s32 " + dst.regs[0] + ", " + std::string(s.constant->i ? "1" : "0") + ", 0");
      return;
    }
    out_.inst("mov." + std::string(ptxBitType(t)) + " " + dst.regs[0] + ", " + ptxImmediate(t, *s.constant));
    return;
  }
  if (s.regs.size() != dst.regs.size()) {
    diags_.report(DiagKind::CodegenUnsupportedForm, out_.location(), "an assignment between values of different shapes");
    return;
  }
  auto st = storageOf(dst.type);
  std::string ty = st ? std::string(regDeclType(st->cls)).substr(1) : "b32";
  for (size_t i = 0; i < dst.regs.size(); ++i)
    if (s.regs[i] != dst.regs[i]) out_.inst("mov." + ty + " " + dst.regs[i] + ", " + s.regs[i]);
}

bool KernelLowering::chargeInstructions(size_t n, SourceRange where) {
  if (n <= instructionBudget_) {
    instructionBudget_ -= n;
    return true;
  }
  if (!budgetReported_) {
    budgetReported_ = true;
    diags_.report(DiagKind::CannotUnroll, where, "the kernel would exceed 2,000,000 unrolled statements");
  }
  return false;
}

Value KernelLowering::lowerExpr(const Expr &e) {
  SourceRange saved = out_.location();
  if (e.range.valid()) out_.setLocation(e.range);
  Value result;
  switch (e.kind) {
  case ExprKind::IntLit:
    result = Value::ofConst(Scalar::IntLit, ConstScalar::ofInt(static_cast<int64_t>(cast<IntLitExpr>(&e)->value)));
    break;
  case ExprKind::FloatLit:
    result = Value::ofConst(Scalar::FloatLit, ConstScalar::ofFloat(cast<FloatLitExpr>(&e)->value));
    break;
  case ExprKind::BoolLit:
    result = Value::ofConst(Scalar::Pred, ConstScalar::ofInt(cast<BoolLitExpr>(&e)->value));
    break;
  case ExprKind::Name: {
    const auto *n = cast<NameExpr>(&e);
    const Decl *d = n->decl;
    if (!d) {
      result = placeholder(ValueType::scalar(Scalar::I32));
      break;
    }
    if (d->declKind == DeclKind::Builtin) {
      if (auto bv = builtinValueOf(e)) { result = lowerBuiltin(e, *bv); break; }
    }
    if (d->declKind == DeclKind::CtParam) {
      const auto *ct = static_cast<const CtParam *>(d);
      result = Value::ofConst(Scalar::IntLit, ConstScalar::ofInt(ct->value.value_or(0)));
      break;
    }
    auto it = env_.find(d);
    if (it != env_.end()) {
      if (const Value *v = std::get_if<Value>(&it->second)) { result = *v; break; }
    }
    diags_.report(DiagKind::CodegenUnsupportedForm, e.range, "'" + n->name + "' used as a value here");
    result = placeholder(ValueType::scalar(Scalar::I32));
    break;
  }
  case ExprKind::Unary: result = lowerUnary(*cast<UnaryExpr>(&e)); break;
  case ExprKind::Binary: result = lowerBinary(*cast<BinaryExpr>(&e)); break;
  case ExprKind::Member:
    if (auto bv = builtinValueOf(e)) {
      result = lowerBuiltin(e, *bv);
    } else if (const auto &m = *cast<MemberExpr>(&e); m.member == "row" || m.member == "col") {
      Value base = lowerExpr(*m.base);
      if (base.type.isFrag()) result = fragmentCoordinates(base.type, m.member == "col", e.range);
      else {
        diags_.report(DiagKind::CodegenUnsupportedForm, e.range, "this member expression as a value");
        result = placeholder(ValueType::scalar(Scalar::I32));
      }
    } else {
      diags_.report(DiagKind::CodegenUnsupportedForm, e.range, "this member expression as a value");
      result = placeholder(ValueType::scalar(Scalar::I32));
    }
    break;
  case ExprKind::Index: {
    const auto &ix = *cast<IndexExpr>(&e);
    if (isGather(ix)) {
      result = lowerGather(ix);
      break;
    }
    if (isMemoryAccess(e)) {
      if (auto m = resolveMemRef(e)) result = load(*m);
      else result = placeholder(ValueType::scalar(Scalar::F32));
      break;
    }
    if (isRegisterArrayRef(e)) {
      Value *el = registerArrayElement(ix);   // reports a non-constant or out-of-range index
      result = el ? *el : placeholder(registerArrayElemType(e));
      break;
    }
    // A vector element: v[k] with constant k.
    Value base = lowerExpr(*ix.base);
    if ((base.type.isVector() || base.type.isFrag()) && ix.items.size() == 1 && ix.items[0].kind == IndexItem::Point) {
      Value k = lowerExpr(*ix.items[0].start);
      if (auto kc = constInt(k); kc && *kc >= 0 && *kc < static_cast<int64_t>(elementCount(base.type))) {
        result = vectorElement(base, static_cast<unsigned>(*kc));
        break;
      }
      diags_.report(DiagKind::NonConstantRegisterIndex, ix.items[0].range, printExpr(*ix.base))
          .hint("vector lanes are registers; mark the enclosing loop 'unroll' so the index is a constant");
      result = placeholder(ValueType::scalar(base.type.elem));
      break;
    }
    diags_.report(DiagKind::CodegenUnsupportedForm, e.range, "this index expression");
    result = placeholder(ValueType::scalar(Scalar::F32));
    break;
  }
  case ExprKind::Call: result = lowerCall(*cast<CallExpr>(&e)); break;
  case ExprKind::List:
    diags_.report(DiagKind::CodegenUnsupportedForm, e.range, "a list outside an attribute");
    result = placeholder(ValueType::scalar(Scalar::I32));
    break;
  }
  out_.setLocation(saved);
  return result;
}

// ------------------------------------------------------------------------------------------- types
std::optional<ValueType> KernelLowering::valueTypeOf(const TypeExpr &t) {
  if (!t.isFrag()) return parseValueTypeName(t.baseName);
  FragShape f;
  static const std::pair<std::string_view, FragKind> kinds[] = {
      {"mma_a", FragKind::MmaA}, {"mma_b", FragKind::MmaB}, {"mma_c", FragKind::MmaC},
      {"wgmma_a", FragKind::WgmmaA}, {"wgmma_acc", FragKind::WgmmaAcc}, {"mma_row", FragKind::MmaRow},
      {"wgmma_row", FragKind::WgmmaRow}, {"mma_col", FragKind::MmaCol}, {"wgmma_col", FragKind::WgmmaCol},
      {"tmem_acc", FragKind::TmemAcc}};
  for (auto &[name, kind] : kinds)
    if (t.fragKind == name) f.kind = kind;
  auto dt = parseScalarName(t.fragDtype);
  ConstEvaluator ce;
  if ((f.kind == FragKind::MmaRow || f.kind == FragKind::WgmmaRow) && dt && t.fragM && !t.fragN) {
    f.dtype = *dt;
    auto m = ce.evaluate(*t.fragM).optional();
    if (!m) return std::nullopt;
    f.m = static_cast<int>(*m);
    return ValueType::fragment(f);
  }
  if ((f.kind == FragKind::MmaCol || f.kind == FragKind::WgmmaCol) && dt && t.fragM && !t.fragN) {
    f.dtype = *dt;
    auto n = ce.evaluate(*t.fragM).optional();   // the one dim written is N
    if (!n) return std::nullopt;
    f.n = static_cast<int>(*n);
    f.m = f.kind == FragKind::MmaCol ? 16 : 64;
    return ValueType::fragment(f);
  }
  if (f.kind == FragKind::None || !dt || !t.fragM || !t.fragN || !t.fragK) return std::nullopt;
  f.dtype = *dt;
  auto m = ce.evaluate(*t.fragM).optional(), n = ce.evaluate(*t.fragN).optional(), k = ce.evaluate(*t.fragK).optional();
  if (!m || !n || !k) return std::nullopt;
  f.m = static_cast<int>(*m);
  f.n = static_cast<int>(*n);
  f.k = static_cast<int>(*k);
  return ValueType::fragment(f);
}

// ------------------------------------------------------------------------------------------- statements
namespace {
// True when `e` names (part of) a var's registers directly, so a let must copy it.
bool refersToVarStorage(const Expr &e) {
  const Expr *cur = &e;
  while (const auto *ix = dynCast<IndexExpr>(cur)) cur = ix->base.get();
  const auto *n = dynCast<NameExpr>(cur);
  return n && n->decl && (n->decl->declKind == DeclKind::Var);
}
} // namespace

void KernelLowering::lowerLet(const LetStmt &s) {
  Value v = lowerExpr(*s.init);
  if (s.declaredType) {
    if (auto t = valueTypeOf(*s.declaredType)) {
      v = v.isConst() && isUntyped(v.type.elem) ? adapt(v, *t) : v;
      if (!(v.type == *t) && !v.isConst()) v = convert(v, *t, s.range);
      else if (v.isConst() && !(v.type == *t)) v = convert(v, *t, s.range);
    }
  }
  if (!v.isConst() && refersToVarStorage(*s.init) && !isMemoryAccess(*s.init)) {
    Value copy = freshValue(v.type);
    copyInto(v, copy);
    v = copy;
  }
  env_[static_cast<const Decl *>(&s)] = v;
}

void KernelLowering::lowerVar(const VarStmt &s) {
  if (!s.declaredType) return;
  const TypeExpr &t = *s.declaredType;
  // The element type: scalar/vector/fragment as written without the bracket groups.
  auto elem = valueTypeOf(t);
  if (!elem || !storageOf(*elem)) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "a register variable of this type");
    return;
  }
  std::optional<Value> init;
  if (s.init) init = lowerExpr(*s.init);
  if (t.dimGroups.empty()) {
    Value v = freshValue(*elem);
    mutableRegs_.insert(v.regs.begin(), v.regs.end());
    if (init) copyInto(*init, v);
    env_[static_cast<const Decl *>(&s)] = v;
    return;
  }
  RegArray arr;
  arr.elem = *elem;
  ConstEvaluator ce;
  int64_t total = 1;
  for (const auto &g : t.dimGroups) {
    std::vector<int64_t> dims;
    for (const auto &d : g) {
      auto v = ce.evaluate(*d).optional();
      if (!v || *v <= 0 || *v > 65536) {
        diags_.report(DiagKind::CodegenUnsupportedForm, d->range, "a register array whose size is not a small constant");
        return;
      }
      dims.push_back(*v);
      total *= *v;
      if (total > 65536) {
        diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "a register array of more than 65536 elements");
        return;
      }
    }
    arr.groups.push_back(std::move(dims));
  }
  for (int64_t i = 0; i < total; ++i) {
    Value v = freshValue(*elem);
    mutableRegs_.insert(v.regs.begin(), v.regs.end());
    if (init) copyInto(*init, v);
    arr.elems.push_back(std::move(v));
  }
  env_[static_cast<const Decl *>(&s)] = std::move(arr);
}

const RegArray *KernelLowering::registerArrayOf(const Expr &e) const {
  const Expr *cur = &e;
  while (const auto *ix = dynCast<IndexExpr>(cur)) cur = ix->base.get();
  const auto *n = dynCast<NameExpr>(cur);
  if (!n || !n->decl) return nullptr;
  auto it = env_.find(n->decl);
  return it == env_.end() ? nullptr : std::get_if<RegArray>(&it->second);
}

bool KernelLowering::isRegisterArrayRef(const Expr &e) const {
  const RegArray *arr = registerArrayOf(e);
  if (!arr) return false;
  size_t depth = 0;
  for (const Expr *cur = &e; isa<IndexExpr>(cur); cur = cast<IndexExpr>(cur)->base.get()) ++depth;
  return depth == arr->groups.size();
}

ValueType KernelLowering::registerArrayElemType(const Expr &e) const {
  const RegArray *arr = registerArrayOf(e);
  return arr ? arr->elem : ValueType::scalar(Scalar::F32);
}

Value *KernelLowering::registerArrayElement(const IndexExpr &e) {
  // Collect the bracket groups from the innermost outwards down to the array's name.
  std::vector<const IndexExpr *> chain;
  const Expr *cur = &e;
  while (const auto *ix = dynCast<IndexExpr>(cur)) {
    chain.push_back(ix);
    cur = ix->base.get();
  }
  const auto *n = dynCast<NameExpr>(cur);
  if (!n || !n->decl) return nullptr;
  auto it = env_.find(n->decl);
  if (it == env_.end()) return nullptr;
  auto *arr = std::get_if<RegArray>(&it->second);
  if (!arr) return nullptr;
  if (chain.size() != arr->groups.size()) return nullptr;   // a partial view: not a single element
  int64_t flat = 0;
  size_t g = 0;
  for (auto rit = chain.rbegin(); rit != chain.rend(); ++rit, ++g) {
    const auto &items = (*rit)->items;
    if (items.size() != arr->groups[g].size()) return nullptr;
    for (size_t d = 0; d < items.size(); ++d) {
      if (items[d].kind != IndexItem::Point) return nullptr;
      Value iv = lowerExpr(*items[d].start);
      auto c = constInt(iv);
      if (!c) {
        diags_.report(DiagKind::NonConstantRegisterIndex, items[d].range, n->name)
            .hint("mark the loop that computes this index 'unroll' (with constant bounds) so the index is known at "
                  "compile time");
        return nullptr;
      }
      if (*c < 0 || *c >= arr->groups[g][d]) {
        diags_.report(DiagKind::RegisterIndexOutOfRange, items[d].range, std::to_string(*c),
                      std::to_string(arr->groups[g][d]), n->name);
        return nullptr;
      }
      flat = flat * arr->groups[g][d] + *c;
    }
  }
  return &arr->elems[static_cast<size_t>(flat)];
}

std::optional<LValue> KernelLowering::resolveLValue(const Expr &e) {
  LValue lv;
  if (isMemoryAccess(e)) {
    auto m = resolveMemRef(e);
    if (!m) return std::nullopt;
    lv.kind = LValue::Memory;
    lv.mem = *m;
    return lv;
  }
  if (const auto *n = dynCast<NameExpr>(&e)) {
    auto it = n->decl ? env_.find(n->decl) : env_.end();
    if (it != env_.end())
      if (auto *v = std::get_if<Value>(&it->second)) {
        lv.kind = LValue::Regs;
        lv.target = v;
        return lv;
      }
  }
  if (const auto *ix = dynCast<IndexExpr>(&e)) {
    if (isRegisterArrayRef(e)) {
      Value *el = registerArrayElement(*ix);   // reports a non-constant or out-of-range index
      if (!el) return std::nullopt;
      lv.kind = LValue::Regs;
      lv.target = el;
      return lv;
    }
    // vector element of a var: v[k]
    std::optional<LValue> base = resolveLValue(*ix->base);
    if (base && base->kind == LValue::Regs && (base->target->type.isVector() || base->target->type.isFrag()) &&
        ix->items.size() == 1 && ix->items[0].kind == IndexItem::Point) {
      auto k = constInt(lowerExpr(*ix->items[0].start));
      if (!k || *k < 0 || *k >= static_cast<int64_t>(elementCount(base->target->type))) {
        diags_.report(DiagKind::NonConstantRegisterIndex, ix->items[0].range, printExpr(*ix->base))
            .hint("vector lanes are registers; mark the enclosing loop 'unroll' so the index is a constant");
        return std::nullopt;
      }
      lv.kind = LValue::VectorElement;
      lv.target = base->target;
      lv.element = static_cast<unsigned>(*k);
      return lv;
    }
  }
  if (!diags_.hasErrors()) diags_.report(DiagKind::CodegenUnsupportedForm, e.range, "an assignment to this target");
  return std::nullopt;
}

Value KernelLowering::readLValue(const LValue &lv) {
  switch (lv.kind) {
  case LValue::Regs: return *lv.target;
  case LValue::VectorElement: return vectorElement(*lv.target, lv.element);
  case LValue::Memory: return load(lv.mem);
  case LValue::None: break;
  }
  return placeholder(ValueType::scalar(Scalar::I32));
}

void KernelLowering::assign(const LValue &lv, const Value &v, SourceRange where) {
  switch (lv.kind) {
  case LValue::Regs: {
    Value src = v;
    if (!v.isConst() && !(v.type == lv.target->type) && !lv.target->type.isFrag() &&
        !(lv.target->type.isVector() && v.type.isScalar()))
      src = convert(v, lv.target->type, where);
    copyInto(src, *lv.target);
    return;
  }
  case LValue::VectorElement:
    // A tf32 fragment element takes an f32 value (setVectorElement rounds it).
    setVectorElement(*lv.target, lv.element,
                     lv.target->type.elem == Scalar::TF32 ? v : adapt(v, ValueType::scalar(lv.target->type.elem)));
    return;
  case LValue::Memory: store(lv.mem, v); return;
  case LValue::None: return;
  }
}

void KernelLowering::lowerAssign(const AssignStmt &s) {
  static constexpr BinaryOp ops[] = {BinaryOp::Add, BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div,
                                     BinaryOp::Rem, BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor,
                                     BinaryOp::Shl, BinaryOp::Shr};
  auto lv = resolveLValue(*s.target);
  if (!lv) return;
  if (lv->kind == LValue::Regs &&
      assignElementwise(*lv->target, *s.value,
                        s.op == AssignOp::Set ? std::nullopt : std::optional<BinaryOp>(ops[static_cast<unsigned>(s.op)]), s.range))
    return;
  // `a[e] = tf32.rz(x)` into a tf32 fragment: x's bits as they are (the tensor core reads the tf32 bits only)
  if (const auto *call = dynCast<CallExpr>(s.value.get());
      call && call->callee == "tf32.rz" && call->args.size() == 1 && s.op == AssignOp::Set &&
      lv->kind == LValue::VectorElement && lv->target->type.elem == Scalar::TF32) {
    setVectorElement(*lv->target, lv->element, lowerExpr(*call->args[0]), true);
    return;
  }
  Value v = lowerExpr(*s.value);
  if (s.op != AssignOp::Set) {
    Value cur = readLValue(*lv);
    v = binaryOp(ops[static_cast<unsigned>(s.op)], cur, v, s.range);
  }
  if (lv->kind == LValue::Memory) {
    Value t = adapt(v, ValueType::vector(lv->mem.elem, lv->mem.lanes));
    if (t.type.isScalar() && lv->mem.lanes == 1 && !(t.type.elem == lv->mem.elem) && !t.isConst())
      t = convert(t, ValueType::scalar(lv->mem.elem), s.range);
    store(lv->mem, t);
    return;
  }
  assign(*lv, v, s.range);
}

void KernelLowering::notSupportedYet(SourceRange r, std::string_view what) {
  diags_.report(DiagKind::CodegenNotSupportedYet, r, what)
      .hint("this form is not lowered yet (docs/hopper.md lists what is); --verify-only and --estimate work on "
            "this kernel");
}

void KernelLowering::lowerOp(const OpStmt &s) {
  if (!s.op) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.nameRange, "the operation '" + s.name + "'");
    return;
  }
  switch (s.op->id) {
  // Hopper constructs (docs/hopper.md)
  case OpId::TmaLoad: lowerTmaLoad(s); return;
  case OpId::TmaStore: lowerTmaStore(s); return;
  case OpId::TmaStoreCommit: lowerTmaStoreCommit(s); return;
  case OpId::TmaStoreWait: lowerTmaStoreWait(s); return;
  case OpId::Wgmma: lowerWgmma(s); return;
  case OpId::Tcgen05Alloc: case OpId::Tcgen05Dealloc: case OpId::Tcgen05Relinquish: case OpId::Tcgen05Mma:
  case OpId::Tcgen05Commit: case OpId::Tcgen05Ld: case OpId::Tcgen05St: case OpId::Tcgen05WaitLd:
  case OpId::Tcgen05WaitSt: case OpId::Tcgen05FenceBefore: case OpId::Tcgen05FenceAfter:
    lowerTcgen05(s);
    return;
  case OpId::WgmmaFence: case OpId::WgmmaCommit: case OpId::WgmmaWait: lowerWgmmaSync(s); return;
  case OpId::ClusterSync: case OpId::ClusterArrive: case OpId::ClusterWait: lowerClusterBarrier(s); return;
  case OpId::MbarrierExpectTx: lowerMbarrierExpectTx(s); return;
  case OpId::Stmatrix: lowerStmatrix(s, false); return;
  case OpId::StmatrixTrans: lowerStmatrix(s, true); return;
  case OpId::FenceProxyAsync:
    out_.inst("fence.proxy.async.shared::cta");
    return;
  case OpId::FenceMbarrierInit:
    out_.inst("fence.mbarrier_init.release.cluster");
    return;
  case OpId::CpAsync: lowerCpAsync(s); return;
  case OpId::CpAsyncCommit: lowerCpAsyncCommit(s); return;
  case OpId::CpAsyncWait: lowerCpAsyncWait(s); return;
  case OpId::Ldmatrix: lowerLdmatrix(s, false); return;
  case OpId::LdmatrixTrans: lowerLdmatrix(s, true); return;
  case OpId::Store:
    if (s.srcs.size() == 1 && s.srcs[0]->type && s.srcs[0]->type->isRowOrColVector()) lowerVectorStore(s, /*reduceAdd=*/false);
    else if (isWgmmaFragmentStore(s)) lowerWgmmaFragmentStore(s);
    else if (s.srcs.size() == 1 && s.srcs[0]->type && s.srcs[0]->type->isFragment() &&
             s.srcs[0]->type->frag == cake::FragKind::TmemAcc)
      lowerTmemFragmentStore(s);
    else lowerFragmentStore(s);
    return;
  case OpId::MmaSync: lowerMmaSync(s); return;
  case OpId::RowArgmin: lowerArgReduction(s, false, false); return;
  case OpId::RowArgmax: lowerArgReduction(s, true, false); return;
  case OpId::ColArgmin: lowerArgReduction(s, false, true); return;
  case OpId::ColArgmax: lowerArgReduction(s, true, true); return;
  case OpId::MbarrierInit: lowerMbarrierInit(s); return;
  case OpId::Arrive: lowerArrive(s); return;
  case OpId::Wait: lowerWait(s); return;
  case OpId::Sync: lowerNamedBarrier(s, false); return;
  case OpId::Syncthreads: lowerSyncthreads(s); return;
  case OpId::Syncwarp: lowerSyncwarp(s); return;
  case OpId::RedAdd: case OpId::RedMin: case OpId::RedMax: case OpId::RedAnd: case OpId::RedOr: case OpId::RedXor:
    lowerReduction(s, *atomicOpOf(s.op->id));
    return;
  case OpId::Count_: break;
  }
  diags_.report(DiagKind::CodegenUnsupportedForm, s.nameRange, "the operation '" + s.name + "'");
}

} // namespace cake::codegen
