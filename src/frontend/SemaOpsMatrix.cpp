// Sema, fragment and tensor-core operations (OpChecker, SemaOpChecker.h): ldmatrix/stmatrix register
// counts (x1/x2/x4), fragment stores (a fragment or a wgmma accumulator's column slice into a tensor),
// row/column arg reductions, mma.sync and wgmma fragment shapes and element types (wgmma operand majorness
// for f8), tcgen05.mma and tcgen05.ld/st against tensor-memory tiles.
#include "frontend/SemaOpChecker.h"

#include <algorithm>
#include <set>

namespace cake {

int64_t OpChecker::matrixFragments(std::vector<Ptr<Expr>> &list, bool written, ScalarKind *dtype) {
  int64_t regs = 0;
  bool ok = true;
  std::optional<ScalarKind> first;
  for (auto &e : list) {
    const Type *t = operand(*e);
    if (t->isError()) { ok = false; continue; }
    if (!t->isFragment()) {
      badOperand(*e, "expected a fragment, found " + typeToString(t));
      ok = false;
      continue;
    }
    if (scalarBits(t->scalar) != 16) {
      badOperand(*e, name() + " moves 16-bit elements; " + quote(S.text(*e)) + " holds " + std::string(scalarName(t->scalar)));
      ok = false;
      continue;
    }
    if (first && *first != t->scalar) {
      S.diags_.report(DiagKind::TypeMismatch, e->range, scalarName(*first), scalarName(t->scalar), name());
      ok = false;
    }
    first = t->scalar;
    if (written && !S.checkAssignable(*e)) ok = false;
    regs += t->fragRegistersPerThread();
  }
  if (!ok || !first) return -1;
  *dtype = *first;
  if (regs != 1 && regs != 2 && regs != 4) {
    S.diags_.report(DiagKind::ShapeMismatch, span(list, s.nameRange), name(),
                    "the fragments hold " + std::to_string(regs) + " 32-bit registers per thread; " + name() +
                        " moves 1, 2 or 4 8x8 matrices (x1/x2/x4)");
    return -1;
  }
  return regs;
}

bool OpChecker::matrixRow(Expr &e, ScalarKind dtype) {
  const Type *t = operand(e);
  if (t->isError()) return false;
  if (!(t->isVector() && t->width == 8 && scalarBits(t->scalar) == 16)) {
    badOperand(e, "expected a row of 8 16-bit elements in shared memory such as a[s][r, c +: 8], found " + typeToString(t));
    return false;
  }
  if (!requireSpace(e, AddressSpace::Shared, "the row")) return false;
  elementsMatch(e, t->scalar, dtype, name());
  return true;
}

void OpChecker::matrixMove(bool load) {
  clauses({}, {});
  if (!form(OpArrow::Move)) return;
  if (load ? !count(s.dsts, 1, 4, "destination(s)") || !count(s.srcs, 1, 1, "source")
           : !count(s.dsts, 1, 1, "destination") || !count(s.srcs, 1, 4, "source(s)"))
    return;
  std::vector<Ptr<Expr>> &fragments = load ? s.dsts : s.srcs;
  Expr &row = load ? *s.srcs[0] : *s.dsts[0];
  ScalarKind dtype{};
  int64_t regs = matrixFragments(fragments, /*written=*/load, &dtype);
  if (regs < 0) { operand(row); return; }
  matrixRow(row, dtype);
}

void OpChecker::store() {
  clauses({}, {});
  if (!form(OpArrow::Move) || !count(s.dsts, 1, 1, "destination") || !count(s.srcs, 1, 1, "source")) return;
  auto dst = coords(*s.dsts[0], "the destination");
  const Type *src = accumulatorColumns(*s.srcs[0]);
  if (!dst || src->isError()) return;
  if (dst->tensor->space == AddressSpace::Register) {
    S.diags_.report(DiagKind::WrongAddressSpace, s.dsts[0]->range, "the destination of 'store'", "global or shared",
                    S.text(*s.dsts[0]), "register");
    return;
  }
  if (!src->isAccLayout() && !src->isRowOrColVector()) {
    badOperand(*s.srcs[0], "store writes accumulator fragments (mma_c, wgmma_acc), row and column vectors at their lane layout; found " +
                               typeToString(src) + " (use an assignment for scalars and vectors)");
    return;
  }
  if (!dst->tensor->element->isScalar()) {
    badOperand(*s.dsts[0], "the destination tensor must have scalar elements, not " + typeToString(dst->tensor->element));
    return;
  }
  ScalarKind de = dst->tensor->element->scalar;
  if (de != src->scalar) {
    auto d = S.diags_.report(DiagKind::TypeMismatch, s.srcs[0]->range, scalarName(de), scalarName(src->scalar), name());
    if (isFloatScalar(de)) {
      std::string conv(scalarName(de));
      Expr &e = *s.srcs[0];
      d.hint("convert the fragment: " + conv + "(" + S.text(e) + ")")
          .fixit(SourceRange{e.range.begin, e.range.begin.offset}, conv + "(")
          .fixit(SourceRange{{e.range.begin.file, e.range.end}, e.range.end}, ")");
    }
  }
}

void OpChecker::argReduction() {
  const bool column = s.op->id == OpId::ColArgmin || s.op->id == OpId::ColArgmax;
  clauses({}, {});
  if (!form(OpArrow::Move) || !count(s.dsts, 2, 2, "destinations (value, index)") || !count(s.srcs, 1, 1, "source")) return;
  const Type *src = operand(*s.srcs[0]);
  const Type *v = operand(*s.dsts[0]);
  const Type *i = operand(*s.dsts[1]);
  if (src->isError() || v->isError() || i->isError()) return;
  if (S.refuseTmemFragment(src, s.srcs[0]->range, quote(name()))) return;
  if (!src->isAccLayout() || !(src->scalar == ScalarKind::F32 || src->scalar == ScalarKind::I32 || src->scalar == ScalarKind::U32)) {
    badOperand(*s.srcs[0], name() + " reduces an accumulator fragment (mma_c, wgmma_acc) of f32, i32 or u32; found " +
                               typeToString(src));
    return;
  }
  const Type *rowT = S.reducedVectorType(src, column);
  const Type *idxT = S.types_.withElement(rowT, ScalarKind::I32);
  if (!sameType(v, rowT)) {
    S.diags_.report(DiagKind::TypeMismatch, s.dsts[0]->range, typeToString(rowT), typeToString(v), name());
    return;
  }
  if (!sameType(i, idxT)) {
    S.diags_.report(DiagKind::TypeMismatch, s.dsts[1]->range, typeToString(idxT), typeToString(i), name());
    return;
  }
  S.checkAssignable(*s.dsts[0]);
  S.checkAssignable(*s.dsts[1]);
}

const Type *OpChecker::accumulatorColumns(Expr &e) {
  auto *ix = dynCast<IndexExpr>(&e);
  if (!ix) return operand(e);
  const Type *bt = S.checkExpr(*ix->base, ExprMode::Operand);
  if (bt->isError() || !bt->isFragment()) return operand(e);
  auto bad = [&](const std::string &why) {
    S.diags_.report(DiagKind::AccumulatorColumnSlice, ix->range, why)
        .hint("write F[:, 64 * j +: 64] for columns 64j .. 64j+63 of a wgmma accumulator F");
    e.type = S.types_.error();
    return e.type;
  };
  if (bt->frag != FragKind::WgmmaAcc) return bad(quote(S.text(*ix->base)) + " is a " + typeToString(bt) + ", not a wgmma_acc");
  if (ix->items.size() != 2 || ix->items[0].kind != IndexItem::Full || ix->items[1].kind != IndexItem::Slice)
    return bad("the slice takes every row and a column range: [:, c0 +: n]");
  IndexItem &cols = ix->items[1];
  const Type *st = S.checkExpr(*cols.start);
  if (st->isError() || !S.checkInteger(*cols.start, "a column")) return e.type = S.types_.error();
  S.concretize(*cols.start);
  auto n = S.constInt(*cols.length, "a slice length");
  if (!n) return e.type = S.types_.error();
  S.adaptUntyped(*cols.length, S.types_.i32());
  if (*n <= 0 || *n % 8 != 0 || *n > bt->n)
    return bad("the length " + std::to_string(*n) + " is not a positive multiple of 8 up to N = " + std::to_string(bt->n));
  ConstResult c0 = S.constEval_.evaluate(*cols.start);
  if (c0.ok() && (c0.value < 0 || c0.value % 8 != 0 || c0.value + *n > bt->n))
    return bad("columns " + std::to_string(c0.value) + " +: " + std::to_string(*n) + " are not 8-column groups inside N = " +
               std::to_string(bt->n));
  e.type = S.types_.fragment(FragKind::WgmmaAcc, bt->scalar, bt->m, *n, bt->k);
  return e.type;
}

BinaryExpr *OpChecker::product() {
  auto *mul = dynCast<BinaryExpr>(s.srcs[0].get());
  if (!mul || mul->op != BinaryOp::Mul) {
    badOperand(*s.srcs[0], "expected 'A * B'; form: " + std::string(op.form));
    operand(*s.srcs[0]);
    return nullptr;
  }
  return mul;
}

const Type *OpChecker::accumulator(FragKind kind) {
  const Type *acc = operand(*s.dsts[0]);
  if (acc->isError()) return nullptr;
  if (!acc->isFragment() || acc->frag != kind) {
    badOperand(*s.dsts[0], "the accumulator must be a " + std::string(fragKindName(kind)) + " fragment, found " + typeToString(acc));
    return nullptr;
  }
  if (acc->scalar != ScalarKind::F32 && acc->scalar != ScalarKind::F16) {
    badOperand(*s.dsts[0], "tensor cores accumulate in f32 or f16, not " + std::string(scalarName(acc->scalar)));
    return nullptr;
  }
  if (!S.checkAssignable(*s.dsts[0])) return nullptr;
  return acc;
}

void OpChecker::mmaSync() {
  clauses({}, {});
  if (!form(OpArrow::Accumulate) || !count(s.dsts, 1, 1, "accumulator") || !count(s.srcs, 1, 1, "product")) return;
  const Type *acc = accumulator(FragKind::MmaC);
  BinaryExpr *mul = product();
  if (!mul) return;
  const Type *a = operand(*mul->lhs);
  const Type *b = operand(*mul->rhs);
  mul->type = acc ? acc : S.types_.error();
  if (!acc || a->isError() || b->isError()) return;
  bool ok = true;
  // A converted accumulator tile (bf16(c) of an mma_c 16 x 8) is the A operand of an m16n8k8 mma: the
  // accumulator layout of 8 columns is the k8 A layout.
  if (a->isFragment() && a->frag == FragKind::MmaC) {
    if (acc->k != 8 || !(a->scalar == ScalarKind::BF16 || a->scalar == ScalarKind::F16)) {
      badOperand(*mul->lhs, "an mma_c tile used as A must be converted to bf16 / f16 (bf16(c)) and feed an m16n8k8 "
                            "accumulator (K = 8)");
      return;
    }
    if (!b->isFragment() || b->frag != FragKind::MmaB || b->k != 8) {
      badOperand(*mul->rhs, "B must be an m16n8k8 mma_b fragment, found " + typeToString(b));
      return;
    }
    if (a->scalar != b->scalar) S.diags_.report(DiagKind::TypeMismatch, mul->range, scalarName(a->scalar), scalarName(b->scalar), name());
    return;
  }
  if (!a->isFragment() || a->frag != FragKind::MmaA) { badOperand(*mul->lhs, "A must be an mma_a fragment, found " + typeToString(a)); ok = false; }
  if (!b->isFragment() || b->frag != FragKind::MmaB) { badOperand(*mul->rhs, "B must be an mma_b fragment, found " + typeToString(b)); ok = false; }
  if (!ok) return;
  auto shape = [](const Type *t) { return "m" + std::to_string(t->m) + "n" + std::to_string(t->n) + "k" + std::to_string(t->k); };
  for (auto [t, e, what] : {std::tuple{a, mul->lhs.get(), "A"}, std::tuple{b, mul->rhs.get(), "B"}})
    if (t->m != acc->m || t->n != acc->n || t->k != acc->k) {
      S.diags_.report(DiagKind::ShapeMismatch, e->range, name(),
                      std::string(what) + " is " + shape(t) + " but the accumulator is " + shape(acc));
      return;
    }
  if (a->scalar != b->scalar) {
    auto d = S.diags_.report(DiagKind::TypeMismatch, mul->range, scalarName(a->scalar), scalarName(b->scalar), name());
    if (a->scalar == ScalarKind::TF32 || b->scalar == ScalarKind::TF32)
      d.hint("tf32 multiplies only tf32: declare both operands frag<mma_a|mma_b, tf32, 16, 8, 8>");
    return;
  }
  if (acc->scalar == ScalarKind::F16 && a->scalar != ScalarKind::F16)
    badOperand(*s.dsts[0], std::string(scalarName(a->scalar)) + " inputs accumulate in f32, not f16");
}

void OpChecker::tcgen05Mma() {
  S.info_->usesTcgen05 = true;
  auto cl = clauses({"accumulate"}, {});
  if (!form(OpArrow::Accumulate) || !count(s.dsts, 1, 1, "accumulator") || !count(s.srcs, 1, 1, "product")) return;
  if (auto it = cl.find("accumulate"); it != cl.end()) {
    const Type *p = operand(*it->second->args[0]);
    if (!p->isError() && !p->isPred()) S.checkPred(*it->second->args[0], "accumulate(..)");
  }
  S.allowTiles_ = true;
  const Type *d = operand(*s.dsts[0]);
  S.allowTiles_ = false;
  BinaryExpr *mul = product();
  if (!mul) return;
  S.allowTiles_ = S.allowTranspose_ = true;
  const Type *a = operand(*mul->lhs);
  const Type *b = operand(*mul->rhs);
  S.allowTiles_ = S.allowTranspose_ = false;
  mul->type = d;
  if (d->isError() || a->isError() || b->isError()) return;
  S.checkTcgen05Mma(s, *mul, d, a, b);
}

void OpChecker::tcgen05Copy() {
  S.info_->usesTcgen05 = true;
  clauses({}, {});
  if (!form(OpArrow::Move) || !count(s.dsts, 1, 1, "destination") || !count(s.srcs, 1, 1, "source")) return;
  const bool load = op.id == OpId::Tcgen05Ld;
  Expr &fragExpr = load ? *s.dsts[0] : *s.srcs[0];
  Expr &tileExpr = load ? *s.srcs[0] : *s.dsts[0];
  const Type *frag = operand(fragExpr);
  S.allowTiles_ = true;
  const Type *tile = operand(tileExpr);
  S.allowTiles_ = false;
  if (frag->isError() || tile->isError()) return;
  if (load && !S.checkAssignable(fragExpr)) return;
  S.checkTcgen05Copy(s, fragExpr, frag, tileExpr, tile);
}

void OpChecker::wgmma() {
  warpgroupOp();
  S.info_->usesWgmma = true;
  clauses({}, {});
  if (!form(OpArrow::Accumulate) || !count(s.dsts, 1, 1, "accumulator") || !count(s.srcs, 1, 1, "product")) return;
  const Type *acc = accumulator(FragKind::WgmmaAcc);
  BinaryExpr *mul = product();
  if (!mul) return;
  S.allowTiles_ = S.allowTranspose_ = true;
  const Type *a = operand(*mul->lhs);
  const Type *b = operand(*mul->rhs);
  S.allowTiles_ = S.allowTranspose_ = false;
  mul->type = acc ? acc : S.types_.error();
  if (!acc || a->isError() || b->isError()) return;

  bool ok = true;
  bool aFrag = a->isFragment();
  // A converted accumulator (bf16(p) of a wgmma_acc [64, Kp]) is an A operand in registers with K = Kp:
  // the accumulator layout of 16 columns is the wgmma_a layout of one k16 step.
  bool aFromAcc = aFrag && a->frag == FragKind::WgmmaAcc;
  if (aFromAcc && !(a->scalar == ScalarKind::BF16 || a->scalar == ScalarKind::F16)) {
    badOperand(*mul->lhs, "an accumulator used as A must be converted to the input type first: bf16(" + S.text(*mul->lhs) + ")");
    ok = false;
  } else if (aFrag && !aFromAcc && a->frag != FragKind::WgmmaA) {
    badOperand(*mul->lhs, "A must be a shared tile [64, K] or a wgmma_a fragment, found " + typeToString(a));
    ok = false;
  } else if (!aFrag && !(a->isTensor() && a->groups.size() == 1 && a->groups[0].size() == 2)) {
    badOperand(*mul->lhs, "A must be a shared tile [64, K] or a wgmma_a fragment, found " + typeToString(a));
    ok = false;
  } else if (!aFrag && a->space != AddressSpace::Shared) {
    requireSpace(*mul->lhs, AddressSpace::Shared, "A");
    ok = false;
  }
  if (!(b->isTensor() && b->groups.size() == 1 && b->groups[0].size() == 2)) {
    badOperand(*mul->rhs, "B must be a shared tile [K, N] (for a tile stored [N, K] write " + S.text(*mul->rhs) +
                              ".T), found " + typeToString(b));
    ok = false;
  } else if (b->space != AddressSpace::Shared) {
    requireSpace(*mul->rhs, AddressSpace::Shared, "B");
    ok = false;
  }
  if (!ok) return;

  ScalarKind ea = a->elementScalar(), eb = b->elementScalar();
  if (ea != eb && !(isF8Scalar(ea) && isF8Scalar(eb))) {
    S.diags_.report(DiagKind::TypeMismatch, mul->range, scalarName(ea), scalarName(eb), name());
    return;
  }
  bool f8 = isF8Scalar(ea);
  int64_t instrK = f8 ? 32 : 16;
  if (acc->k != instrK) {
    S.diags_.report(DiagKind::ShapeMismatch, s.dsts[0]->range, name(),
                    std::string(scalarName(ea)) + " inputs need an accumulator with K = " + std::to_string(instrK) +
                        ", but it has K = " + std::to_string(acc->k));
    return;
  }
  if (acc->scalar == ScalarKind::F16 && ea == ScalarKind::BF16) {
    badOperand(*s.dsts[0], "bf16 inputs accumulate in f32, not f16");
    return;
  }
  std::vector<int64_t> bd = dimValues(b);   // [K, N]
  int64_t kA, mA;
  if (aFromAcc) {
    mA = a->m;
    kA = a->n;
  } else if (aFrag) {
    mA = a->m;
    kA = a->k;
    if (a->n != acc->n) {
      S.diags_.report(DiagKind::ShapeMismatch, mul->lhs->range, name(),
                      "the A fragment has N = " + std::to_string(a->n) + " but the accumulator has N = " + std::to_string(acc->n));
      return;
    }
  } else {
    std::vector<int64_t> ad = dimValues(a);   // [M, K]
    mA = ad[0];
    kA = ad[1];
  }
  if (mA != acc->m) {
    S.diags_.report(DiagKind::ShapeMismatch, mul->lhs->range, name(),
                    "A has " + std::to_string(mA) + " rows but wgmma computes " + std::to_string(acc->m) + " rows (M = 64)");
    return;
  }
  if (kA != bd[0]) {
    S.diags_.report(DiagKind::ShapeMismatch, mul->range, name(),
                    "A has K = " + std::to_string(kA) + " but B has K = " + std::to_string(bd[0]));
    return;
  }
  if (bd[1] != acc->n) {
    S.diags_.report(DiagKind::ShapeMismatch, mul->rhs->range, name(),
                    "B has N = " + std::to_string(bd[1]) + " but the accumulator has N = " + std::to_string(acc->n));
    return;
  }
  if (kA <= 0 || kA % instrK != 0) {
    S.diags_.report(DiagKind::ShapeMismatch, mul->range, name(),
                    "K = " + std::to_string(kA) + " is not a multiple of the instruction's K = " + std::to_string(instrK));
    return;
  }
  if (f8) {
    if (!aFrag && a->transposed)
      badOperand(*mul->lhs, "f8 wgmma reads A K-major: use the tile stored [64, K] without .T");
    if (!b->transposed)
      badOperand(*mul->rhs, "f8 wgmma reads B K-major: store the tile as [N, K] and write " + S.text(*mul->rhs) + ".T");
  }
}

} // namespace cake
