// Sema, atomics: the expression form atom.OP(T[i, ..], v [, w]) and the statements red.OP T[i, ..], v; and
// red.add T[r0, c0] <- ACC; (docs/language.md "Atomics").
//
// The target of every form is an element of a global tensor parameter or a shared array (E0342 otherwise):
// one scalar, or a 2-element slice T[i, j +: 2] for the packed f16x2 / bf16x2 add.  Its type decides the
// operation's value type; the table in Atomics.cpp says whether PTX has the operation for it (E0340, with
// the supported types and, for float min/max, the ordered-integer encoding as the hint) and from which
// target on (E0341).  The values (v, and cmp for atom.cas) are typed as the element (untyped constants
// adapt; E0304 otherwise).  The result of atom.* is the element's old value, of the element's type.
//
// The fragment form adds an f32 accumulator fragment (mma_c or wgmma_acc) at its lane layout: only red.add,
// an f32 tensor of rank >= 2 addressed at the tile's top-left element by points (E0343 otherwise).  An f32
// row or column vector is added along the tensor's last index (rank >= 1), as `store` writes it.
#include "frontend/SemaImpl.h"

#include "frontend/Atomics.h"

#include <algorithm>

namespace cake {

const Type *Sema::checkAtomicTarget(Expr &target, AtomicOp op, std::string_view spelling) {
  const Type *t = target.type ? target.type : checkExpr(target);
  if (t->isError()) return nullptr;
  auto *ix = dynCast<IndexExpr>(&target);
  const Type *bt = ix && ix->base ? ix->base->type : nullptr;
  if (!ix || !bt || !bt->isTensor() || bt->space == AddressSpace::Register || !(t->isScalar() || t->isVector())) {
    std::string found = typeToString(t) + " " + quote(text(target));
    if (bt && bt->isTensor() && bt->space == AddressSpace::Register) found = "the register array element " + quote(text(target));
    else if (t->isTensor()) found = "the tile " + quote(text(target));
    auto d = diags_.report(DiagKind::AtomicNotMemory, target.range, spelling, found);
    if (bt && bt->isTensor() && bt->space == AddressSpace::Register)
      d.hint("registers belong to one thread: update them with an assignment");
    else
      d.hint("give one element, e.g. " + std::string(spelling) + (spelling.rfind("atom.", 0) == 0 ? "(T[i, j], v)" : " T[i, j], v"));
    return nullptr;
  }
  AtomicValueType vt{t->scalar, t->vectorWidth()};
  std::optional<AtomicSupport> support = atomicSupport(op, vt);
  if (!support) {
    auto d = diags_.report(DiagKind::AtomicUnsupportedType, target.range, spelling, typeToString(t));
    std::string hint = quote(std::string(spelling)) + " takes " + atomicTypesText(op);
    if ((op == AtomicOp::Min || op == AtomicOp::Max) && isFloatScalar(t->scalar))
      hint = "PTX has no float " + std::string(atomicOpName(op)) + " atomic: keep a u32 tensor and write " +
             std::string(spelling) + (spelling.rfind("atom.", 0) == 0 ? "(U[i], ordered(x))" : " U[i], ordered(x)") +
             "; unordered(U[i]) reads the float back";
    else if (t->isVector() && vt.width != 2)
      hint = "atomics update one element, or a pair of 16-bit floats (T[i, j +: 2] as f16x2 / bf16x2)";
    d.hint(hint);
    return nullptr;
  }
  if (arch_ && !archIn(*arch_, support->archs)) {
    diags_.report(DiagKind::AtomicArchUnavailable, target.range, spelling, typeToString(t), archName(*arch_),
                  describeArchSet(support->archs))
        .hint("raise the target ('target sm_90a'), or accumulate into an f32 tensor and convert afterwards");
    return nullptr;
  }
  return t;
}

bool Sema::checkAtomicValue(Expr &value, const Type *elem, std::string_view spelling) {
  const Type *t = value.type ? value.type : checkExpr(value);
  if (t->isError()) return false;
  if (t->isUntyped()) {
    adaptUntyped(value, elem);
    return true;
  }
  if (sameType(t, elem)) return true;
  auto d = diags_.report(DiagKind::TypeMismatch, value.range, typeToString(elem), typeToString(t), spelling);
  if ((t->isScalar() || t->isVector()) && t->vectorWidth() == elem->vectorWidth() && !t->isPred()) {
    std::string conv = typeToString(elem);
    d.hint("convert the value: " + conv + "(" + text(value) + ")")
        .fixit(SourceRange{value.range.begin, value.range.begin.offset}, conv + "(")
        .fixit(SourceRange{{value.range.begin.file, value.range.end}, value.range.end}, ")");
  }
  return false;
}

const Type *Sema::typeAtomicCall(CallExpr &c, const IntrinsicInfo &intr) {
  std::optional<AtomicOp> op = atomicOpOf(intr.id);
  if (!op) return types_.error();
  const Type *elem = checkAtomicTarget(*c.args[0], *op, c.callee);
  if (!elem) return types_.error();
  bool ok = true;
  for (size_t i = 1; i < c.args.size(); ++i) ok = checkAtomicValue(*c.args[i], elem, c.callee) && ok;
  return ok ? elem : types_.error();
}

void Sema::analyzeReduction(OpStmt &s, AtomicOp op) {
  const std::string spelling(s.op->spelling);
  auto typeRest = [&] {
    for (auto *list : {&s.dsts, &s.srcs})
      for (auto &e : *list)
        if (e && !e->type) checkExpr(*e, ExprMode::Operand);
  };
  if (s.arrow == OpArrow::None) {
    if (s.dsts.size() != 2 || !s.dsts[0] || !s.dsts[1]) {
      diags_.report(DiagKind::WrongArity, s.dsts.empty() || !s.dsts[0] ? s.nameRange : s.dsts[0]->range, spelling,
                    "2 (the element and the value)", s.dsts.size())
          .hint("form: " + std::string(s.op->form));
      typeRest();
      return;
    }
    checkExpr(*s.dsts[0]);
    checkExpr(*s.dsts[1]);
    if (const Type *elem = checkAtomicTarget(*s.dsts[0], op, spelling)) checkAtomicValue(*s.dsts[1], elem, spelling);
    return;
  }
  // The fragment form: red.add T[r0, c0] <- ACC.
  auto fail = [&](SourceRange r, std::string why) {
    diags_.report(DiagKind::AtomicFragmentForm, r, spelling, std::move(why)).hint("form: red.add T[r0, c0] <- acc;");
    typeRest();
  };
  if (s.arrow != OpArrow::Move || op != AtomicOp::Add) {
    fail(s.nameRange, op != AtomicOp::Add ? "only red.add adds a fragment" : "use '<-' to add a fragment");
    return;
  }
  if (s.dsts.size() != 1 || s.srcs.size() != 1 || !s.dsts[0] || !s.srcs[0]) {
    fail(s.nameRange, "expected one destination element and one fragment");
    return;
  }
  const Type *dt = checkExpr(*s.dsts[0], ExprMode::Operand);
  const Type *ft = checkExpr(*s.srcs[0], ExprMode::Operand);
  if (dt->isError() || ft->isError()) return;
  if (refuseTmemFragment(ft, s.srcs[0]->range, "'red' of a fragment")) return;
  if (!ft->isFragment() || !(ft->isAccLayout() || ft->isRowOrColVector()) || ft->scalar != ScalarKind::F32) {
    fail(s.srcs[0]->range, "the source must be an f32 accumulator fragment (mma_c or wgmma_acc) or an f32 row or column "
                           "vector, found " + typeToString(ft));
    return;
  }
  auto *ix = dynCast<IndexExpr>(s.dsts[0].get());
  const Type *bt = ix && ix->base ? ix->base->type : nullptr;
  bool points = ix && std::all_of(ix->items.begin(), ix->items.end(), [](const IndexItem &i) { return i.kind == IndexItem::Point; });
  if (!ix || !points || !bt || !bt->isTensor() || bt->space == AddressSpace::Register || !dt->isScalar()) {
    diags_.report(DiagKind::AtomicNotMemory, s.dsts[0]->range, spelling, typeToString(dt) + " " + quote(text(*s.dsts[0])))
        .hint("give the tile's top-left element of a global or shared tensor: red.add T[r0, c0] <- acc;");
    return;
  }
  if (ix->items.size() < 2 && !ft->isRowOrColVector()) {
    fail(s.dsts[0]->range, "the destination must be an element of a tensor of rank 2 or more (row, column)");
    return;
  }
  if (dt->scalar != ScalarKind::F32) {
    fail(s.dsts[0]->range, "the destination tensor must have f32 elements, not " + typeToString(dt));
    return;
  }
}

} // namespace cake
