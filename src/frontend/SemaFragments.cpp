// Sema, fragments as values: element-wise typing of accumulator fragments and row vectors.
//
// A fragment is a value distributed over a warp (mma_c, mma_row, mma_col) or a warpgroup (wgmma_acc,
// wgmma_row, wgmma_col); each thread holds its own elements, and every element-wise operation acts on those
// registers alone.  The rules here lift the scalar rules of SemaTypes.cpp over a *layout carrier*:
//   - the carrier of two operands is the fragment whose layout the result takes: two fragments of one
//     kind and shape, or an accumulator and a row or column vector of its family (a row vector is
//     broadcast along the columns: wgmma_acc <-> wgmma_row, mma_c <-> mma_row; a column vector of the
//     accumulator's N along the rows: wgmma_acc <-> wgmma_col, mma_c <-> mma_col); a scalar is broadcast
//     to every element;
//   - the operation is typed on the operands' *element* types by the scalar rule (each fragment operand
//     is viewed as its element type while the rule runs, so untyped constants adapt and diagnostics
//     read as for scalars), and the result is the carrier with the rule's element type;
//   - `F.row` / `F.col` are i32 fragments of F's layout holding each element's tile coordinates;
//   - a global or shared tensor indexed with integer fragments is a gather: a fragment of loads at the
//     index fragments' layout;
//   - `rowmax(F)`, `rowmin(F)`, `rowsum(F)` reduce an accumulator along its rows into a row vector;
//     `colmax(F)`, `colmin(F)`, `colsum(F)` along its columns (the rows a warp holds) into a column vector.
#include "frontend/SemaImpl.h"

namespace cake {

namespace {
// The row-vector kind of an accumulator layout's family.
FragKind rowKindOf(FragKind k) { return k == FragKind::WgmmaAcc || k == FragKind::WgmmaRow ? FragKind::WgmmaRow : FragKind::MmaRow; }
// The column-vector kind of an accumulator layout's family.
FragKind colKindOf(FragKind k) { return k == FragKind::WgmmaAcc || k == FragKind::WgmmaCol ? FragKind::WgmmaCol : FragKind::MmaCol; }

// A row vector broadcasts onto an accumulator of its family and M, a column vector onto one of its family and N.
bool broadcastsOnto(const Type *vec, const Type *acc) {
  if (!acc->isAccLayout()) return false;
  if (vec->isRowVector()) return vec->frag == rowKindOf(acc->frag) && vec->m == acc->m;
  if (vec->isColVector()) return vec->frag == colKindOf(acc->frag) && vec->n == acc->n;
  return false;
}

bool sameShape(const Type *a, const Type *b) { return a->frag == b->frag && a->m == b->m && a->n == b->n && a->k == b->k; }

// Views a fragment operand as its element type for the duration of a scalar typing rule.
class ElementView {
public:
  ElementView(TypeContext &types, std::initializer_list<Expr *> exprs) {
    for (Expr *e : exprs)
      if (e && e->type && e->type->isFragment()) {
        saved_.push_back({e, e->type});
        e->type = types.scalar(e->type->scalar);
      }
  }
  ~ElementView() {
    for (auto &[e, t] : saved_) e->type = t;
  }
  ElementView(const ElementView &) = delete;
  ElementView &operator=(const ElementView &) = delete;

private:
  std::vector<std::pair<Expr *, const Type *>> saved_;
};
} // namespace

const Type *Sema::layoutCarrier(const Type *a, const Type *b, SourceRange r, std::string_view spelling) {
  if (!a || !a->isFragment()) return b && b->isFragment() ? b : nullptr;
  if (!b || !b->isFragment()) return a;
  if (sameShape(a, b)) return a;
  if (broadcastsOnto(b, a)) return a;
  if (broadcastsOnto(a, b)) return b;
  auto d = diags_.report(DiagKind::FragmentLayoutMismatch, r, typeToString(a), typeToString(b), spelling);
  if ((a->isAccLayout() && b->isRowVector()) || (a->isRowVector() && b->isAccLayout()))
    d.hint("a row vector broadcasts onto accumulators of its family: wgmma_row onto wgmma_acc, mma_row onto mma_c");
  else if ((a->isAccLayout() && b->isColVector()) || (a->isColVector() && b->isAccLayout()))
    d.hint("a column vector broadcasts onto accumulators of its family with as many columns: frag<wgmma_col, T, N> onto "
           "frag<wgmma_acc, T, 64, N, K>, mma_col onto mma_c");
  else
    d.hint("element-wise operations need fragments of one kind and shape");
  return nullptr;
}

const Type *Sema::fragmentBinary(BinaryOp op, const Type *lt, const Type *rt, Expr *lhs, Expr *rhs, SourceRange r,
                                 std::string_view spelling) {
  const Type *carrier = layoutCarrier(lt, rt, r, spelling);
  if (!carrier) return types_.error();
  const Type *et;
  {
    ElementView view(types_, {lhs, rhs});
    et = binaryResultType(op, lhs->type, rhs->type, lhs, rhs, r, spelling);
  }
  if (et->isError()) return et;
  if (et->isUntyped()) et = types_.scalar(et->kind == TypeKind::UntypedFloat ? ScalarKind::F32 : ScalarKind::I32);
  return types_.withElement(carrier, et->scalar);
}

const Type *Sema::fragmentCoordinate(MemberExpr &m, const Type *bt) {
  bool isRow = m.member == "row", isCol = m.member == "col";
  if ((isRow || isCol) && refuseTmemFragment(bt, m.memberRange, quote("." + m.member))) return types_.error();
  bool has = bt->isAccLayout() ? isRow || isCol : bt->isRowVector() ? isRow : bt->isColVector() ? isCol : false;
  if (!has) {
    auto d = diags_.report(DiagKind::UnknownMember, m.memberRange, typeToString(bt), m.member);
    if (bt->isAccLayout()) d.hint("an accumulator fragment has .row and .col (each element's tile coordinates)");
    else if (bt->isRowVector()) d.hint("a row vector has .row (each element's row in the tile)");
    else if (bt->isColVector()) d.hint("a column vector has .col (each element's column in the tile)");
    else d.hint("only accumulator fragments (mma_c, wgmma_acc), row and column vectors have coordinates");
    return types_.error();
  }
  return types_.withElement(bt, ScalarKind::I32);
}

const Type *Sema::fragmentElement(IndexExpr &ix, const Type *bt) {
  if (ix.items.size() != 1 || ix.items[0].kind != IndexItem::Point) {
    diags_.report(DiagKind::WrongIndexCount, ix.range, text(*ix.base), 1, ix.items.size());
    return types_.error();
  }
  Expr &idx = *ix.items[0].start;
  ConstResult c = constEval_.evaluate(idx);
  int64_t n = bt->fragElementsPerThread();
  if (c.ok() && (c.value < 0 || c.value >= n)) {
    diags_.report(DiagKind::FragmentElementOutOfRange, idx.range, c.value, typeToString(bt), n)
        .hint("each thread holds elements 0.." + std::to_string(n - 1) + "; for a tile coordinate use " + text(*ix.base) +
              ".row / .col");
    return types_.error();
  }
  // A tf32 element is read and written as f32 (a write rounds it, cvt.rna.tf32.f32).
  return types_.scalar(bt->scalar == ScalarKind::TF32 ? ScalarKind::F32 : bt->scalar);
}

const Type *Sema::fragmentGather(IndexExpr &ix, const Type *bt, const Type *carrier) {
  bool allPoints = true;
  for (const IndexItem &it : ix.items) allPoints = allPoints && it.kind == IndexItem::Point;
  if (!bt->isTensor() || bt->space == AddressSpace::Register || bt->groups.size() != 1 || !allPoints ||
      !bt->element->isScalar() || bt->element->isPred()) {
    diags_.report(DiagKind::BadGather, ix.range, text(ix), typeToString(bt))
        .hint("a fragment index gathers one scalar element per fragment element from a global or shared tensor, "
              "e.g. bias[n0 + acc.col]");
    return types_.error();
  }
  if (ix.items.size() != bt->groups[0].size()) {
    diags_.report(DiagKind::WrongIndexCount, ix.range, text(*ix.base), bt->groups[0].size(), ix.items.size());
    return types_.error();
  }
  return types_.withElement(carrier, bt->element->scalar);
}

const Type *Sema::fragmentReduction(CallExpr &c, const Type *t, bool column) {
  if (refuseTmemFragment(t, c.args[0]->range, quote(c.callee))) return types_.error();
  if (!t->isAccLayout() || !(t->scalar == ScalarKind::F32 || t->scalar == ScalarKind::I32 || t->scalar == ScalarKind::U32)) {
    diags_.report(DiagKind::InvalidOperator, c.args[0]->range, c.callee, typeToString(t))
        .hint(c.callee + " reduces an accumulator fragment (mma_c, wgmma_acc) of f32, i32 or u32 along its " +
              (column ? "columns" : "rows"));
    return types_.error();
  }
  return reducedVectorType(t, column);
}

const Type *Sema::reducedVectorType(const Type *acc, bool column) {
  if (column) return types_.fragment(colKindOf(acc->frag), acc->scalar, acc->m, acc->n, 0);
  return types_.fragment(rowKindOf(acc->frag), acc->scalar, acc->m, 0, 0);
}

const Type *Sema::liftedIntrinsic(CallExpr &c, const IntrinsicInfo &intr) {
  const Type *carrier = nullptr;
  for (auto &a : c.args) {
    if (!a->type->isFragment()) continue;
    if (a->type->scalar == ScalarKind::TF32) {
      diags_.report(DiagKind::InvalidOperator, a->range, c.callee, typeToString(a->type))
          .hint("a tf32 fragment is an mma.sync operand only; compute on its f32 elements, " + text(*a) + "[i]");
      return types_.error();
    }
    carrier = carrier ? layoutCarrier(carrier, a->type, c.range, c.callee) : a->type;
    if (!carrier) return types_.error();
  }
  switch (intr.rule) {
  case IntrinsicRule::FloatUnary: case IntrinsicRule::NumericUnary: case IntrinsicRule::SameType2:
  case IntrinsicRule::Fma: case IntrinsicRule::Select:
    break;
  default:
    diags_.report(DiagKind::InvalidOperator, c.range, c.callee, typeToString(carrier))
        .hint(c.callee + " does not apply element-wise to fragments");
    return types_.error();
  }
  const Type *et;
  {
    ElementView view(types_, {c.args.size() > 0 ? c.args[0].get() : nullptr, c.args.size() > 1 ? c.args[1].get() : nullptr,
                              c.args.size() > 2 ? c.args[2].get() : nullptr});
    et = typeIntrinsicRule(c, intr);
  }
  if (et->isError()) return et;
  return types_.withElement(carrier, et->scalar);
}

} // namespace cake
