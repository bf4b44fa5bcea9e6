// Memory atomics and reductions (docs/language.md "Atomics"), and the ordered-integer encoding of floats.
//
//   atom.OP(T[i, ..], v)         -> atom{.global|.shared}.OP.TYPE d, [addr], v           (d: the old value)
//   atom.cas(T[i, ..], cmp, v)   -> atom{.global|.shared}.cas.bN d, [addr], cmp, v
//   red.OP T[i, ..], v;          -> red{.global|.shared}.OP.TYPE [addr], v
//   red.add T[r0, c0] <- ACC;    -> per accumulator element pair (AccumulatorLayout.cpp):
//                                     global: @p red.global.add.f32 [addr], x0; @p red.global.add.f32 [addr+4], x1
//                                     shared: red.shared.add.f32 twice, unmasked
//                                   p: the pair's row and first column inside T's last two dims (as `store`);
//                                   the vector red.global.add.v2.f32 of sm_90 needs PTX ISA 8.1, above the
//                                   version cakec emits, so it is not used.
//   red.add T[.., i0] <- V;      -> V a row or column vector: one red.add.f32 per element, from one lane per
//                                   row (column), along T's last index (LowerFragments.cpp, as `store V`).
// TYPE comes from the table in frontend/Atomics.cpp (the one sema checked the operands with): f32,
// noftz.f16x2, noftz.bf16x2, s32, u32, u64 (i64 add), s64 (i64 min/max), b32 / b64 for exch, cas and the
// bitwise operations.  The address is the element's, computed as for a load (LowerMemory.cpp: global
// window .b64 registers, shared window .b32 registers, swizzle applied); without .sem / .scope the
// operations are relaxed at GPU scope (PTX ISA), which is what histograms and partial sums need.
//
//   ordered(x: f32) -> u32:  b = bits(x); b ^ ((b >>s 31) | 0x80000000)
//     a non-negative float gets its sign bit set, a negative one all bits flipped, so unsigned integer
//     order is the float order (-inf < ... < -0 < +0 < ... < +inf, NaNs outside); u32 min/max atomics on
//     encoded values are float min/max.
//   unordered(u: u32) -> f32: u ^ ((~u >>s 31) | 0x80000000), the inverse.
#include "codegen/KernelLowering.h"

namespace cake::codegen {

namespace {

ScalarKind frontendScalar(Scalar s) {
  switch (s) {
  case Scalar::Pred: return ScalarKind::Pred;
  case Scalar::I32: case Scalar::IntLit: return ScalarKind::I32;
  case Scalar::U32: return ScalarKind::U32;
  case Scalar::I64: return ScalarKind::I64;
  case Scalar::F16: return ScalarKind::F16;
  case Scalar::BF16: return ScalarKind::BF16;
  case Scalar::F32: case Scalar::FloatLit: return ScalarKind::F32;
  case Scalar::F8E4M3: return ScalarKind::F8E4M3;
  case Scalar::F8E5M2: return ScalarKind::F8E5M2;
  case Scalar::TF32: return ScalarKind::TF32;
  }
  return ScalarKind::I32;
}

} // namespace

// The PTX type suffix of `op` on the element `m` addresses (the table sema checked against), or nullopt
// after reporting why (sema rejects these; reached only through inputs sema did not see).
static std::optional<std::string> atomicPtxType(KernelLowering &L, AtomicOp op, const MemRef &m, SourceRange where) {
  AtomicValueType vt{frontendScalar(m.elem), m.lanes};
  std::optional<AtomicSupport> support = atomicSupport(op, vt);
  if (!support || !archIn(L.arch(), support->archs)) {
    L.diags().report(DiagKind::CodegenUnsupportedForm, where,
                     "an atomic " + std::string(atomicOpName(op)) + " on this element type for this target");
    return std::nullopt;
  }
  return std::string(support->ptxType);
}

Value KernelLowering::lowerAtomicCall(const CallExpr &e, AtomicOp op) {
  const size_t want = op == AtomicOp::Cas ? 3 : 2;
  if (e.args.size() != want || !e.args[0]) {
    diags_.report(DiagKind::CodegenUnsupportedForm, e.range, "an atomic call with these arguments");
    return placeholder(ValueType::scalar(Scalar::I32));
  }
  std::optional<MemRef> m = isMemoryAccess(*e.args[0]) ? resolveMemRef(*e.args[0]) : std::nullopt;
  if (!m) {
    diags_.report(DiagKind::CodegenUnsupportedForm, e.args[0]->range, "an atomic on something other than a tensor element");
    return placeholder(ValueType::scalar(Scalar::I32));
  }
  const ValueType vt = m->lanes == 2 ? ValueType::vector(m->elem, 2) : ValueType::scalar(m->elem);
  std::vector<Value> vals;
  for (size_t i = 1; i < e.args.size(); ++i) vals.push_back(adapt(lowerExpr(*e.args[i]), vt));
  auto type = atomicPtxType(*this, op, *m, e.range);
  if (!type) return placeholder(vt);
  Value old = freshValue(vt);
  std::string inst = std::string("atom.") + (m->shared ? "shared" : "global") + "." + std::string(atomicOpName(op)) + "." +
                     *type + " " + old.regs[0] + ", " + m->addr.str();
  for (const Value &v : vals) inst += ", " + (isFloat(vt.elem) ? reg(v) : operand(v));
  out_.inst(inst);
  return old;
}

void KernelLowering::lowerReduction(const OpStmt &s, AtomicOp op) {
  if (s.arrow == OpArrow::Move) {
    if (s.srcs.size() == 1 && s.srcs[0]->type && s.srcs[0]->type->isRowOrColVector()) lowerVectorStore(s, /*reduceAdd=*/true);
    else lowerFragmentReduction(s);
    return;
  }
  if (s.dsts.size() != 2 || !s.dsts[0] || !s.dsts[1]) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "a reduction other than '" + s.name + " T[i], v'");
    return;
  }
  std::optional<MemRef> m = isMemoryAccess(*s.dsts[0]) ? resolveMemRef(*s.dsts[0]) : std::nullopt;
  if (!m) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "a reduction into something other than a tensor element");
    return;
  }
  const ValueType vt = m->lanes == 2 ? ValueType::vector(m->elem, 2) : ValueType::scalar(m->elem);
  Value v = adapt(lowerExpr(*s.dsts[1]), vt);
  auto type = atomicPtxType(*this, op, *m, s.range);
  if (!type) return;
  out_.inst(std::string("red.") + (m->shared ? "shared" : "global") + "." + std::string(atomicOpName(op)) + "." + *type +
            " " + m->addr.str() + ", " + (isFloat(vt.elem) ? reg(v) : operand(v)));
}

void KernelLowering::lowerFragmentReduction(const OpStmt &s) {
  if (s.dsts.size() != 1 || s.srcs.size() != 1) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "red.add with other than one destination and one fragment");
    return;
  }
  Value frag = lowerExpr(*s.srcs[0]);
  const FragShape f = frag.type.frag;
  if (!frag.type.isFrag() || f.dtype != Scalar::F32) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.srcs[0]->range, "red.add of a value that is not an f32 accumulator fragment");
    return;
  }
  auto layout = accumulatorLayout(f, s.range);
  if (!layout) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.srcs[0]->range,
                  "red.add of this fragment (m16n8 mma_c or 64 x N wgmma_acc accumulators)");
    return;
  }
  auto target = lowerFragmentStoreTarget(s);
  if (!target) return;
  const Scalar destElem = target->elem();
  if (destElem != Scalar::F32) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "red.add of f32 elements into a " +
                                                                 std::string(scalarName(destElem)) + " tensor");
    return;
  }
  // Two scalar reductions per pair: the vector form red.global.add.v2.f32 (sm_90) needs PTX ISA 8.1, above
  // the PTX version cakec emits for sm_90 / sm_90a.
  forEachAccumulatorPair(*target, *layout, /*maskGlobal=*/true, s.range, s.dsts[0]->range,
                         [&](size_t p, const MemRef &m, const std::string &mask) {
                           const std::string space = m.shared ? "shared" : "global";
                           Address second = m.addr;
                           second.offset += 4;
                           for (int e = 0; e < 2; ++e) {
                             std::string text = "red." + space + ".add.f32 " + (e ? second : m.addr).str() + ", " +
                                                frag.regs[2 * p + static_cast<size_t>(e)];
                             if (mask.empty()) out_.inst(text);
                             else out_.instGuarded(mask, text);
                           }
                         });
}

Value KernelLowering::lowerOrderedEncoding(const Value &x, bool encode) {
  const ValueType from = ValueType::scalar(encode ? Scalar::F32 : Scalar::U32);
  Value v = adapt(x, from);
  std::string bits = out_.newReg(RegClass::B32);
  out_.inst("mov.b32 " + bits + ", " + reg(v));
  std::string src = bits;
  if (!encode) {
    src = out_.newReg(RegClass::B32);
    out_.inst("not.b32 " + src + ", " + bits);
  }
  std::string sign = out_.newReg(RegClass::B32), mask = out_.newReg(RegClass::B32), r = out_.newReg(RegClass::B32);
  out_.inst("shr.s32 " + sign + ", " + src + ", 31");
  out_.inst("or.b32 " + mask + ", " + sign + ", -2147483648");
  out_.inst("xor.b32 " + r + ", " + bits + ", " + mask);
  Value d = freshValue(ValueType::scalar(encode ? Scalar::U32 : Scalar::F32));
  out_.inst("mov.b32 " + d.regs[0] + ", " + r);
  return d;
}

} // namespace cake::codegen
