// mma.sync and the store of accumulator fragments.
//
//   mma.sync C += A * B
//     -> mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {C}, {A}, {B}, {C}   (and f16 / m16n8k8 forms;
//        tf32 inputs: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 with 4 + 2 .b32 operand registers)
//   A[i] = x, A a tf32 fragment: cvt.rna.tf32.f32 into element i's .b32 register (LowerArith's setVectorElement)
//   store T[r0, c0] <- [bf16|f16|f32](C)     C an m16n8 accumulator (mma_c)
//     PTX ISA "Matrix Fragments for mma.m16n8k16" (accumulator C/D): with g = lane >> 2 and t = lane & 3,
//     lane holds c0, c1 at row g, columns 2t, 2t+1 and c2, c3 at row g + 8, the same columns.  So each lane
//     does two 2-element stores: T[r0 + g, c0 + 2t +: 2] and T[r0 + g + 8, c0 + 2t +: 2] (st.v2.f32, or one
//     cvt.rn.bf16x2.f32 and a 4-byte st.b32 for bf16 / f16 outputs).
//   The lane layout and the per-pair addresses are AccumulatorLayout.cpp's (shared with wgmma and red.add).
#include "codegen/KernelLowering.h"

namespace cake::codegen {

void KernelLowering::fillFragment(Value &frag, const Value &scalar) {
  auto st = storageOf(frag.type);
  if (!st) return;
  Scalar dt = frag.type.frag.dtype;
  if (!scalar.isConst()) {
    diags_.report(DiagKind::CodegenUnsupportedForm, out_.location(), "initialising a fragment from a non-constant value");
    return;
  }
  if (dt == Scalar::TF32) {   // every element: the constant rounded to tf32
    ConstScalar f = convertConst(scalar.type.elem, Scalar::F32, *scalar.constant);
    for (auto &r : frag.regs) out_.inst("mov.b32 " + r + ", " + std::to_string(tf32Bits(f.f)));
    return;
  }
  ConstScalar c = convertConst(scalar.type.elem, dt, *scalar.constant);
  if (st->elemsPerReg == 1 && st->cls != RegClass::F32) {   // integer and pred fragments: one element per register
    for (auto &r : frag.regs) {
      Value dst = Value::ofRegs(ValueType::scalar(dt), {r});
      copyInto(Value::ofConst(dt, c), dst);
    }
    return;
  }
  if (st->cls == RegClass::F32) {
    for (auto &r : frag.regs) out_.inst("mov.f32 " + r + ", " + ptxImmediate(Scalar::F32, c));
    return;
  }
  uint32_t half = dt == Scalar::BF16 ? bf16Bits(c.f) : dt == Scalar::F16 ? f16Bits(c.f) : static_cast<uint32_t>(c.i & 0xffff);
  uint32_t word = half | (half << 16);
  for (auto &r : frag.regs) out_.inst("mov.b32 " + r + ", " + std::to_string(word));
}

void KernelLowering::lowerMmaSync(const OpStmt &s) {
  const auto *mul = s.srcs.size() == 1 ? dynCast<BinaryExpr>(s.srcs[0].get()) : nullptr;
  if (s.dsts.size() != 1 || !mul || mul->op != BinaryOp::Mul || s.arrow != OpArrow::Accumulate) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "mma.sync other than 'mma.sync C += A * B'");
    return;
  }
  auto acc = resolveLValue(*s.dsts[0]);
  if (!acc) return;
  Value a = lowerExpr(*mul->lhs), b = lowerExpr(*mul->rhs);
  if (acc->kind != LValue::Regs || !acc->target->type.isFrag() || !a.type.isFrag() || !b.type.isFrag()) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "mma.sync on operands that are not fragments");
    return;
  }
  if (a.type.frag.kind == FragKind::MmaC && a.type.frag.m == 16 && a.type.frag.n == 8 && a.regs.size() == 2) {
    a.type.frag.kind = FragKind::MmaA;   // bf16(c): the packed accumulator tile is the m16n8k8 A fragment
    a.type.frag.k = 8;
  }
  const FragShape &fc = acc->target->type.frag, &fa = a.type.frag, &fb = b.type.frag;
  if (fc.kind != FragKind::MmaC || fa.kind != FragKind::MmaA || fb.kind != FragKind::MmaB || fa.m != fc.m ||
      fb.n != fc.n || fa.k != fb.k || fa.dtype != fb.dtype || fc.m != 16 || fc.n != 8 || (fa.k != 16 && fa.k != 8)) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "mma.sync with these fragment shapes");
    return;
  }
  std::string ab(ptxArithType(fa.dtype)), cd(ptxArithType(fc.dtype));
  const bool tf32 = fa.dtype == Scalar::TF32;   // m16n8k8 only, f32 accumulator
  if ((fa.dtype != Scalar::BF16 && fa.dtype != Scalar::F16 && !tf32) || (fc.dtype != Scalar::F32 && fc.dtype != Scalar::F16) ||
      ((fa.dtype == Scalar::BF16 || tf32) && fc.dtype != Scalar::F32) || (tf32 && fa.k != 8)) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "mma.sync with " + ab + " inputs and a " + cd + " accumulator");
    return;
  }
  auto list = [](const std::vector<std::string> &regs) {
    std::string out = "{";
    for (size_t i = 0; i < regs.size(); ++i) out += (i ? ", " : "") + regs[i];
    return out + "}";
  };
  const auto &c = acc->target->regs;
  out_.inst("mma.sync.aligned.m16n8k" + std::to_string(fa.k) + ".row.col." + cd + "." + ab + "." + ab + "." + cd + " " +
            list(c) + ", " + list(a.regs) + ", " + list(b.regs) + ", " + list(c));
}

// The destination of a fragment store, T[..., r0, c0]: the tensor's binding (global tensor or shared array) and
// the lowered point indices of its top-left element.  Shared by the mma.sync and the wgmma accumulator stores.
std::optional<KernelLowering::FragmentStoreTarget> KernelLowering::lowerFragmentStoreTarget(const OpStmt &s, size_t minIndices) {
  std::vector<const IndexExpr *> chain;
  const Expr *cur = s.dsts[0].get();
  while (const auto *ix = dynCast<IndexExpr>(cur)) {
    chain.push_back(ix);
    cur = ix->base.get();
  }
  const auto *n = dynCast<NameExpr>(cur);
  auto it = n && n->decl ? env_.find(n->decl) : env_.end();
  if (it == env_.end() ||
      !(std::holds_alternative<GlobalTensor>(it->second) || std::holds_alternative<SharedArray>(it->second))) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "a store destination that is not a tensor element");
    return std::nullopt;
  }
  FragmentStoreTarget target{&it->second, {}};
  for (auto rit = chain.rbegin(); rit != chain.rend(); ++rit)
    for (const auto &item : (*rit)->items) {
      if (item.kind != IndexItem::Point) {
        diags_.report(DiagKind::CodegenUnsupportedForm, item.range, "a slice in a fragment store destination (give the top-left element)");
        return std::nullopt;
      }
      target.index.push_back(lowerExpr(*item.start));
    }
  if (target.index.size() < minIndices) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "a fragment store into a one-dimensional tensor");
    return std::nullopt;
  }
  return target;
}

Scalar KernelLowering::FragmentStoreTarget::elem() const {
  if (const auto *global = std::get_if<GlobalTensor>(tensor)) return global->elem;
  return std::get<SharedArray>(*tensor).elem;
}

bool KernelLowering::storedElementMatches(const FragmentStoreTarget &target, Scalar stored, SourceRange R) {
  if (target.elem() == stored) return true;
  diags_.report(DiagKind::CodegenUnsupportedForm, R,
                "storing " + std::string(scalarName(stored)) + " values into a " + std::string(scalarName(target.elem())) +
                    " tensor");
  return false;
}

// The source of a fragment store: FRAG, or T(FRAG) with T the scalar element type to store as.
std::pair<const Expr *, std::optional<Scalar>> KernelLowering::splitStoreConversion(const Expr &src) const {
  if (const auto *call = dynCast<CallExpr>(&src); call && call->args.size() == 1)
    if (auto t = parseValueTypeName(call->callee); t && t->isScalar()) return {call->args[0].get(), t->elem};
  return {&src, std::nullopt};
}

void KernelLowering::lowerFragmentStore(const OpStmt &s) {
  if (s.dsts.size() != 1 || s.srcs.size() != 1) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "store with other than one destination and one fragment");
    return;
  }
  // The source: FRAG or T(FRAG) with T the element type to store.
  auto [fragExpr, outType] = splitStoreConversion(*s.srcs[0]);
  Value frag = lowerExpr(*fragExpr);
  if (!frag.type.isFrag()) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.srcs[0]->range, "a store whose source is not a fragment");
    return;
  }
  const FragShape &f = frag.type.frag;
  if (f.kind == FragKind::WgmmaAcc || f.kind == FragKind::WgmmaA) {
    notSupportedYet(s.nameRange, "storing wgmma fragments");
    return;
  }
  if (f.kind != FragKind::MmaC || f.m != 16 || f.n != 8) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.srcs[0]->range, "a store of this fragment kind (only m16n8 accumulators)");
    return;
  }
  Scalar to = outType.value_or(f.dtype);
  // The destination: T[..., r0, c0] with point indices.
  auto target = lowerFragmentStoreTarget(s);
  if (!target || !storedElementMatches(*target, to, s.range)) return;
  // The accumulator's elements as f32 or f16 scalars: c0..c3.
  std::vector<Value> elems;
  if (f.dtype == Scalar::F32) {
    for (const auto &r : frag.regs) elems.push_back(Value::ofRegs(ValueType::scalar(Scalar::F32), {r}));
  } else {
    elems = unpackVector(Value::ofRegs(ValueType::vector(f.dtype, 4), frag.regs));
  }
  auto layout = accumulatorLayout(f, s.range);
  if (!layout) return;
  forEachAccumulatorPair(*target, *layout, /*maskGlobal=*/false, s.range, s.dsts[0]->range,
                         [&](size_t p, const MemRef &m, const std::string &) {
                           Value pair = packVector(ValueType::vector(f.dtype, 2), {elems[2 * p], elems[2 * p + 1]});
                           store(m, convert(pair, ValueType::vector(to, 2), s.range));
                         });
}

} // namespace cake::codegen
