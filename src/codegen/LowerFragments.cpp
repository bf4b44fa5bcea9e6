// Fragments as values: element-wise arithmetic, coordinates, gathers, row and column reductions and vector
// stores on accumulator fragments (mma_c, wgmma_acc), row vectors (mma_row, wgmma_row) and column vectors
// (mma_col, wgmma_col), all on the calling thread's own registers - no shared-memory round trip.
//
// Layouts (PTX ISA "Matrix fragments for mma.m16n8k16" and "wgmma register fragments"), with g = lane >> 2,
// q = lane & 3 and w = warp & 3 (the warp's place in its warpgroup):
//   accumulator element e   row  R0 + 8 * ((e >> 1) & 1)     column  2q + 8 * (e >> 2) + (e & 1)
//   row-vector element r    row  R0 + 8 * r                  (r = 0, 1; each lane of a quad holds both)
//   column-vector element c                                  column  2q + 8 * (c >> 1) + (c & 1)
//                                                            (each of the 8 lanes with one q holds them)
//   where R0 = g (mma_c, mma_row) or 16w + g (wgmma_acc, wgmma_row).
// Element-wise operations unpack both operands to per-element scalars (a row vector is broadcast: element
// e of an accumulator meets row element (e >> 1) & 1; a column vector: column element 2 * (e >> 2) + (e & 1);
// a scalar meets every element), apply the scalar lowering of LowerArith / LowerIntrinsics to each, and
// repack.  Coordinates are affine values (one lane
// register plus a constant per element), so index arithmetic on them folds into address immediates, and a
// gather loads each distinct address once (the two rows of a thread share their columns).
// A row reduction folds the thread's elements of each row pairwise, as a balanced tree over the elements in
// column order (log2 of the chain a linear fold has: the epilogue's latency, not its instruction count, is
// what the overlap with the next wgmma has to hide), then combines the four lanes of the quad that share
// the row with two butterfly shuffles (xor 1, xor 2); argmin/argmax carry the column along and break ties
// toward the smaller column (a tree node takes its right half only when it is strictly better, and every
// column of the right half is larger).  A column reduction combines the thread's two rows of each column,
// then the eight lanes that share the column (the same q) with three butterfly shuffles (xor 4, 8, 16): it
// covers the rows the warp holds - all 16 of an mma_c tile, the warp's 16-row band of a wgmma accumulator;
// argmin/argmax carry the row (its tile row, 16w included) and break ties toward the smaller row.
#include "support/FoldPairwise.h"
#include "codegen/KernelLowering.h"

#include <map>
#include <tuple>

namespace cake::codegen {

namespace {
bool isRowKind(FragKind k) { return k == FragKind::MmaRow || k == FragKind::WgmmaRow; }
bool isColKind(FragKind k) { return k == FragKind::MmaCol || k == FragKind::WgmmaCol; }
bool isVectorKind(FragKind k) { return isRowKind(k) || isColKind(k); }
bool isAccKind(FragKind k) { return k == FragKind::MmaC || k == FragKind::WgmmaAcc; }
bool isWgmmaFamily(FragKind k) {
  return k == FragKind::WgmmaAcc || k == FragKind::WgmmaRow || k == FragKind::WgmmaA || k == FragKind::WgmmaCol;
}
// Which of the thread's two rows element e of a fragment of kind k lies in.
unsigned rowHalf(FragKind k, unsigned e) { return isRowKind(k) ? e : (e >> 1) & 1; }
// Which of the thread's columns (a column-vector element) element e of an accumulator lies in.
unsigned columnSlot(unsigned e) { return 2 * (e >> 2) + (e & 1); }
// The column of column-vector element c, less the lane part 2q.
int64_t columnOffset(unsigned c) { return 8 * (c >> 1) + (c & 1); }
// Codegen's fragment kind of a sema fragment type (the codegen enum has None first).
FragKind fragKindOf(const Type &t) { return static_cast<FragKind>(static_cast<unsigned>(t.frag) + 1); }
} // namespace

bool isGather(const IndexExpr &ix) {
  for (const auto &item : ix.items)
    if (item.start && item.start->type && item.start->type->isFragment()) return true;
  return false;
}

unsigned elementCount(const ValueType &t) { return t.isFrag() ? fragElementsPerLane(t.frag) : t.lanes; }

ValueType KernelLowering::liftedType(const ValueType &carrier, Scalar elem) {
  ValueType t = carrier;
  t.frag.dtype = concreteScalar(elem);
  t.elem = t.frag.dtype;
  return t;
}

std::vector<Value> KernelLowering::broadcastElements(const Value &v, const ValueType &carrier) {
  const unsigned n = elementCount(carrier);
  if (!v.type.isFrag()) return std::vector<Value>(n, v);
  std::vector<Value> own = unpackVector(v);
  if (v.type.frag.kind == carrier.frag.kind) return own;
  // A row or column vector broadcast onto an accumulator of its family.
  const bool column = isColKind(v.type.frag.kind);
  std::vector<Value> out;
  for (unsigned e = 0; e < n; ++e) out.push_back(own[column ? columnSlot(e) : rowHalf(carrier.frag.kind, e)]);
  return out;
}

// The fragment whose layout a combination of values takes: an accumulator over a row or column vector, else
// the first.
static const ValueType *carrierOf(const std::vector<const Value *> &vals) {
  const ValueType *c = nullptr;
  for (const Value *v : vals)
    if (v->type.isFrag() && (!c || (isVectorKind(c->frag.kind) && !isVectorKind(v->type.frag.kind)))) c = &v->type;
  return c;
}

Value KernelLowering::fragmentBinaryOp(BinaryOp op, const Value &a, const Value &b, SourceRange where) {
  const ValueType carrier = *carrierOf({&a, &b});
  std::vector<Value> la = broadcastElements(a, carrier), lb = broadcastElements(b, carrier);
  std::vector<Value> r;
  for (size_t i = 0; i < la.size(); ++i) r.push_back(binaryOp(op, la[i], lb[i], where));
  Scalar et = r.empty() ? carrier.elem : r[0].type.elem;
  return packVector(liftedType(carrier, et), r);
}

Value KernelLowering::fragmentUnaryOp(UnaryOp op, const Value &a, SourceRange where) {
  std::vector<Value> la = unpackVector(a), r;
  for (const Value &x : la) r.push_back(unaryOp(op, x, where));
  return packVector(a.type, r);
}

Value KernelLowering::fragmentIntrinsic(const std::string &name, const std::vector<Value> &args, SourceRange where) {
  std::vector<const Value *> ptrs;
  for (const Value &a : args) ptrs.push_back(&a);
  const ValueType carrier = *carrierOf(ptrs);
  std::vector<std::vector<Value>> lanes;
  for (const Value &a : args) lanes.push_back(broadcastElements(a, carrier));
  std::vector<Value> r;
  for (unsigned e = 0; e < elementCount(carrier); ++e) {
    std::vector<Value> at;
    for (auto &l : lanes) at.push_back(l[e]);
    r.push_back(intrinsicOnValues(name, at, where));
  }
  Scalar et = r.empty() ? carrier.elem : r[0].type.elem;
  return packVector(liftedType(carrier, et), r);
}

Value KernelLowering::fragmentConvert(const Value &v, const ValueType &to, SourceRange where) {
  // f32 -> bf16 / f16 packs pairs with one cvt each (the vector path); everything else element by element.
  const unsigned n = elementCount(v.type);
  if (v.type.elem == Scalar::F32 && (to.elem == Scalar::BF16 || to.elem == Scalar::F16) && n % 2 == 0) {
    Value packed = convert(Value::ofRegs(ValueType::vector(Scalar::F32, n), v.regs), ValueType::vector(to.elem, n), where);
    return Value::ofRegs(to, packed.regs);
  }
  std::vector<Value> r;
  for (const Value &x : unpackVector(v)) r.push_back(convert(x, ValueType::scalar(to.elem), where));
  return packVector(to, r);
}

// ------------------------------------------------------------------------------------------- coordinates
Value KernelLowering::fragmentRowBase(const FragShape &f, SourceRange where) {
  Value g = binaryOp(BinaryOp::Shr, *laneId_, Value::ofInt(Scalar::I32, 2), where);
  if (!isWgmmaFamily(f.kind)) return g;
  Value w = binaryOp(BinaryOp::BitAnd, *warpId_, Value::ofInt(Scalar::I32, 3), where);
  return binaryOp(BinaryOp::Add, binaryOp(BinaryOp::Shl, w, Value::ofInt(Scalar::I32, 4), where), g, where);
}

// The lane part of element coordinates: 2q for columns, R0 for rows.
Value KernelLowering::coordinateBase(const FragShape &f, bool column, SourceRange where) {
  if (!column) return fragmentRowBase(f, where);
  return binaryOp(BinaryOp::Shl, binaryOp(BinaryOp::BitAnd, *laneId_, Value::ofInt(Scalar::I32, 3), where),
                  Value::ofInt(Scalar::I32, 1), where);
}

int64_t KernelLowering::coordinateOffset(FragKind kind, bool column, unsigned e) {
  if (!column) return 8 * rowHalf(kind, e);
  return columnOffset(isColKind(kind) ? e : columnSlot(e));
}

Value KernelLowering::fragmentCoordinates(const ValueType &f, bool column, SourceRange where) {
  Value base = coordinateBase(f.frag, column, where);
  std::vector<Value> r;
  for (unsigned e = 0; e < elementCount(f); ++e)
    r.push_back(binaryOp(BinaryOp::Add, base, Value::ofInt(Scalar::I32, coordinateOffset(f.frag.kind, column, e)), where));
  return packVector(liftedType(f, Scalar::I32), r);
}

// ------------------------------------------------------------------------------------------- gathers
Value KernelLowering::lowerGather(const IndexExpr &ix) {
  std::vector<Value> idx;
  for (const auto &item : ix.items) idx.push_back(lowerExpr(*item.start));
  std::vector<const Value *> ptrs;
  for (const Value &v : idx) ptrs.push_back(&v);
  const ValueType carrier = *carrierOf(ptrs);
  std::vector<std::vector<Value>> perIndex;
  for (const Value &v : idx) perIndex.push_back(broadcastElements(v, carrier));
  GatherCache loaded;
  std::vector<Value> r;
  for (unsigned e = 0; e < elementCount(carrier); ++e) {
    std::vector<Value> at;
    for (auto &l : perIndex) at.push_back(l[e]);
    r.push_back(gatherElement(ix, at, loaded));
  }
  Scalar elem = r.empty() ? Scalar::F32 : r[0].type.elem;
  return packVector(liftedType(carrier, elem), r);
}

// One element of a gather: the load at `at`, once per distinct index tuple (register and constant parts of
// each index); global loads are masked by the tensor's dims (an out-of-range element reads 0; unsigned
// compares catch negative indices).
Value KernelLowering::gatherElement(const IndexExpr &ix, const std::vector<Value> &atElement, GatherCache &loaded) {
  // A stage of a shared ring (`a[s][acc.col]`, `a[s][w][acc.row, acc.col]`): the point indices of its levels,
  // outermost first, lead the element's.
  const Expr *baseExpr = ix.base.get();
  std::vector<const IndexExpr *> levels;   // innermost first
  while (const auto *stage = dynCast<IndexExpr>(baseExpr)) {
    levels.push_back(stage);
    baseExpr = stage->base.get();
  }
  std::vector<Value> at;
  for (auto level = levels.rbegin(); level != levels.rend(); ++level)
    for (const IndexItem &item : (*level)->items) {
      if (item.kind != IndexItem::Point || !item.start) {
        diags_.report(DiagKind::CodegenUnsupportedForm, ix.range, "a gather from a slice of an array (index its stage with points)");
        return placeholder(ValueType::scalar(Scalar::F32));
      }
      at.push_back(lowerExpr(*item.start));
    }
  at.insert(at.end(), atElement.begin(), atElement.end());
  const auto *n = dynCast<NameExpr>(baseExpr);
  auto it = n && n->decl ? env_.find(n->decl) : env_.end();
  if (it == env_.end() || !(std::holds_alternative<GlobalTensor>(it->second) || std::holds_alternative<SharedArray>(it->second))) {
    diags_.report(DiagKind::CodegenUnsupportedForm, ix.range, "a gather from something other than a tensor parameter or shared array");
    return placeholder(ValueType::scalar(Scalar::F32));
  }
  const Binding &tensor = it->second;
  const GlobalTensor *global = std::get_if<GlobalTensor>(&tensor);
  std::vector<std::pair<std::string, int64_t>> key;
  for (const Value &v : at) {
    if (auto c = constInt(v)) key.push_back({"", *c});
    else key.push_back(affineParts(v).first.empty() ? std::pair<std::string, int64_t>{v.regs[0], 0} : affineParts(v));
  }
  key.push_back({n->name, 0});
  if (auto f = loaded.find(key); f != loaded.end()) return f->second;
  MemRef m = memRefAt(tensor, at, 1, ix.range);
  Value v;
  if (global) {
    std::string ok;
    for (size_t d = 0; d < at.size(); ++d) {
      std::string p = out_.newReg(RegClass::Pred);
      out_.inst("setp.lt.u32 " + p + ", " + reg(adapt(at[d], ValueType::scalar(Scalar::I32))) + ", " + operand(global->dims[d]));
      if (ok.empty()) ok = p;
      else {
        std::string both = out_.newReg(RegClass::Pred);
        out_.inst("and.pred " + both + ", " + ok + ", " + p);
        ok = both;
      }
    }
    v = maskedLoad(m, ok);
  } else {
    v = load(m);
  }
  loaded[key] = v;
  return v;
}

Value KernelLowering::maskedLoad(const MemRef &m, const std::string &guard) {
  ValueType t = ValueType::scalar(m.elem);
  auto st = storageOf(t);
  if (!st || st->cls == RegClass::Pred || scalarBits(m.elem) < 16) {
    diags_.report(DiagKind::CodegenUnsupportedForm, out_.location(), "a gather of " + typeName(t));
    return placeholder(t);
  }
  Value v = freshValue(t);
  std::string ty = std::string(regDeclType(st->cls)).substr(1);
  out_.inst("mov." + ty + " " + v.regs[0] + ", 0" + (ty == "f32" ? "f00000000" : ""));
  std::string space = m.global && m.global->readOnly ? "ld.global.nc." : "ld.global.";
  out_.instGuarded(guard, space + ty + " " + v.regs[0] + ", " + m.addr.str());
  return v;
}

// ------------------------------------------------------------------------------------------- reductions

Value KernelLowering::combineValues(std::string_view minMax, const Value &a, const Value &b, SourceRange where) {
  if (minMax.empty()) return binaryOp(BinaryOp::Add, a, b, where);
  return intrinsicOnValues(std::string(minMax), {a, b}, where);
}

// The accumulator elements of each row (column) vector element, in column (row) order.
static std::vector<std::vector<unsigned>> lineGroups(const FragShape &acc, bool column) {
  const unsigned n = fragElementsPerLane(acc);
  std::vector<std::vector<unsigned>> groups(column ? n / 2 : 2);
  for (unsigned e = 0; e < n; ++e) groups[column ? columnSlot(e) : rowHalf(acc.kind, e)].push_back(e);
  return groups;
}

// The row or column vector type of an accumulator's family.
static ValueType lineVectorType(const ValueType &acc, bool column) {
  ValueType t = acc;
  const bool wgmma = isWgmmaFamily(acc.frag.kind);
  t.frag.kind = column ? (wgmma ? FragKind::WgmmaCol : FragKind::MmaCol) : (wgmma ? FragKind::WgmmaRow : FragKind::MmaRow);
  if (!column) t.frag.n = 0;
  t.frag.k = 0;
  return t;
}

// The butterfly distances that combine the lanes sharing a row (the quad) or a column (the same q).
static std::vector<int> lineShuffles(bool column) { return column ? std::vector<int>{4, 8, 16} : std::vector<int>{1, 2}; }

Value KernelLowering::lineReduce(std::string_view name, const Value &f, SourceRange where) {
  const bool column = name.substr(0, 3) == "col";
  const std::string_view op = name.substr(3);
  const std::string_view minMax = op == "max" ? "max" : op == "min" ? "min" : "";   // "": a sum
  std::vector<Value> el = unpackVector(f);
  std::vector<Value> lines;
  for (const std::vector<unsigned> &group : lineGroups(f.type.frag, column)) {
    std::vector<Value> line;
    for (unsigned e : group) line.push_back(el[e]);
    Value v = foldPairwise(line, [&](const Value &l, const Value &r) { return combineValues(minMax, l, r, where); });
    for (int m : lineShuffles(column)) v = combineValues(minMax, v, shuffle("bfly", v, Value::ofInt(Scalar::I32, m), where), where);
    lines.push_back(v);
  }
  return packVector(lineVectorType(f.type, column), lines);
}

void KernelLowering::lowerArgReduction(const OpStmt &s, bool isMax, bool column) {
  auto dv = resolveLValue(*s.dsts[0]);
  auto di = resolveLValue(*s.dsts[1]);
  if (!dv || !di) return;
  Value f = lowerExpr(*s.srcs[0]);
  if (!f.type.isFrag() || !isAccKind(f.type.frag.kind)) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.srcs[0]->range, "this operand of " + s.name);
    return;
  }
  const SourceRange R = s.range;
  const BinaryOp better = isMax ? BinaryOp::Gt : BinaryOp::Lt;
  std::vector<Value> el = unpackVector(f);
  // The index carried along: each element's column (row reductions) or row (column reductions).
  std::vector<Value> at = unpackVector(fragmentCoordinates(f.type, /*column=*/!column, R));
  std::vector<Value> vals, idxs;
  for (const std::vector<unsigned> &group : lineGroups(f.type.frag, column)) {
    // (value, index) pairs in increasing index order: a strict comparison keeps the smaller index.
    std::vector<std::pair<Value, Value>> line;
    for (unsigned e : group) line.push_back({el[e], at[e]});
    auto [v, i] = foldPairwise(line, [&](const std::pair<Value, Value> &l, const std::pair<Value, Value> &r) {
      Value take = binaryOp(better, r.first, l.first, R);
      return std::pair<Value, Value>{selectValue(take, r.first, l.first), selectValue(take, r.second, l.second)};
    });
    for (int m : lineShuffles(column)) {
      Value ov = shuffle("bfly", v, Value::ofInt(Scalar::I32, m), R);
      Value oi = shuffle("bfly", i, Value::ofInt(Scalar::I32, m), R);
      Value strictly = binaryOp(better, ov, v, R);
      Value tie = binaryOp(BinaryOp::BitAnd, binaryOp(BinaryOp::Eq, ov, v, R), binaryOp(BinaryOp::Lt, oi, i, R), R);
      Value take = binaryOp(BinaryOp::BitOr, strictly, tie, R);
      v = selectValue(take, ov, v);
      i = selectValue(take, oi, i);
    }
    vals.push_back(v);
    idxs.push_back(i);
  }
  ValueType rt = lineVectorType(f.type, column);
  assign(*dv, packVector(rt, vals), R);
  assign(*di, packVector(liftedType(rt, Scalar::I32), idxs), R);
}

// ------------------------------------------------------------------------------------------- vector stores
// store T[.., i0] <- V and red.add T[.., i0] <- V for a row or column vector V: element k of the vector goes
// to T[.., i0 + its row (column)].  One lane per row (column) writes: lane q == 0 of each quad for rows,
// the lanes of g == 0 (lanes 0..3) for columns; global stores are masked by every dim.
void KernelLowering::lowerVectorStore(const OpStmt &s, bool reduceAdd) {
  auto [vecExpr, outType] = splitStoreConversion(*s.srcs[0]);
  Value rv = lowerExpr(*vecExpr);
  if (outType) rv = fragmentConvert(rv, liftedType(rv.type, *outType), s.range);
  auto target = lowerFragmentStoreTarget(s, 1);
  if (!target) return;
  const Binding &dest = *target->tensor;
  const std::vector<Value> &idx = target->index;
  const GlobalTensor *global = std::get_if<GlobalTensor>(&dest);
  const SourceRange R = s.range;
  const bool column = isColKind(rv.type.frag.kind);
  std::string writer = out_.newReg(RegClass::Pred);
  Value part = column ? binaryOp(BinaryOp::Shr, *laneId_, Value::ofInt(Scalar::I32, 2), R)
                      : binaryOp(BinaryOp::BitAnd, *laneId_, Value::ofInt(Scalar::I32, 3), R);
  out_.inst("setp.eq.s32 " + writer + ", " + reg(part) + ", 0");
  Value base = coordinateBase(rv.type.frag, column, R);
  std::vector<Value> el = unpackVector(rv);
  for (unsigned k = 0; k < el.size(); ++k) {
    std::vector<Value> at = idx;
    at.back() = binaryOp(BinaryOp::Add, idx.back(),
                         binaryOp(BinaryOp::Add, base, Value::ofInt(Scalar::I32, coordinateOffset(rv.type.frag.kind, column, k)), R), R);
    std::string ok = writer;
    if (global)
      for (size_t d = 0; d < at.size(); ++d) {
        std::string p = out_.newReg(RegClass::Pred), both = out_.newReg(RegClass::Pred);
        out_.inst("setp.lt.u32 " + p + ", " + reg(adapt(at[d], ValueType::scalar(Scalar::I32))) + ", " + operand(global->dims[d]));
        out_.inst("and.pred " + both + ", " + ok + ", " + p);
        ok = both;
      }
    MemRef m = memRefAt(dest, at, 1, s.dsts[0]->range);
    if (m.elem != concreteScalar(el[k].type.elem)) {
      diags_.report(DiagKind::CodegenUnsupportedForm, R,
                    "storing " + std::string(scalarName(el[k].type.elem)) + " values into a " + std::string(scalarName(m.elem)) + " tensor");
      return;
    }
    if (reduceAdd)
      out_.instGuarded(ok, std::string("red.") + (m.shared ? "shared" : "global") + ".add.f32 " + m.addr.str() + ", " + reg(el[k]));
    else
      guardedStore(m, el[k], ok);
  }
}

void KernelLowering::guardedStore(const MemRef &m, const Value &v, const std::string &guard) {
  auto st = storageOf(ValueType::scalar(m.elem));
  std::string ty = std::string(regDeclType(st->cls)).substr(1);
  out_.instGuarded(guard, std::string(m.shared ? "st.shared." : "st.global.") + ty + " " + m.addr.str() + ", " + reg(v));
}

// ------------------------------------------------------------------------------------------- element by element
// An assignment of an element-wise expression to a fragment of 32-bit elements is lowered one element at a
// time: element e of the target receives element e of the expression, so only what that element needs is
// live (`acc = act(acc + bias[n0 + acc.col])` holds one bias value at a time, not a fragment of them).
// Only nodes of the target's own layout are evaluated per element; everything else - scalars, row
// vectors next to an accumulator, row reductions, names - is lowered once (the first element visits every
// node, so all of them are lowered before the first element is written) and broadcast.
// What an element of a node depends on: nothing (scalars), only the element's column, only its row, or
// the element itself.  Elements that agree on what a node depends on share its value (the bias of a column
// is gathered once for both rows of a thread).
enum class ElementDep : uint8_t { None, Column, Row, Element };
static ElementDep joinDeps(ElementDep a, ElementDep b) {
  if (a == b || b == ElementDep::None) return a;
  if (a == ElementDep::None) return b;
  return ElementDep::Element;
}

static ElementDep elementDep(const Expr &e, FragKind carrier) {
  if (!e.type || !e.type->isFragment()) return ElementDep::None;
  if (fragKindOf(*e.type) != carrier) {
    const FragKind k = fragKindOf(*e.type);
    return isRowKind(k) ? ElementDep::Row : isColKind(k) ? ElementDep::Column : ElementDep::Element;
  }
  switch (e.kind) {
  case ExprKind::Unary: return elementDep(*cast<UnaryExpr>(&e)->operand, carrier);
  case ExprKind::Binary:
    return joinDeps(elementDep(*cast<BinaryExpr>(&e)->lhs, carrier), elementDep(*cast<BinaryExpr>(&e)->rhs, carrier));
  case ExprKind::Member: {
    const auto &m = *cast<MemberExpr>(&e);
    return m.member == "col" ? ElementDep::Column : m.member == "row" ? ElementDep::Row : ElementDep::Element;
  }
  case ExprKind::Index: {
    const auto &ix = *cast<IndexExpr>(&e);
    if (!isGather(ix)) return ElementDep::Element;
    ElementDep d = ElementDep::None;
    for (const auto &item : ix.items) d = joinDeps(d, elementDep(*item.start, carrier));
    return d;
  }
  case ExprKind::Call: {
    const auto &c = *cast<CallExpr>(&e);
    if (isLineReduction(c.callee)) return ElementDep::Element;
    ElementDep d = ElementDep::None;
    for (const auto &a : c.args) d = joinDeps(d, elementDep(*a, carrier));
    return d;
  }
  default: return ElementDep::Element;
  }
}

Value KernelLowering::elementOf(const Expr &e, unsigned elem, const ValueType &carrier, ElementwiseCache &cache) {
  const bool memoisable = e.type && e.type->isFragment() && fragKindOf(*e.type) == carrier.frag.kind;
  std::pair<const Expr *, int64_t> key{&e, 0};
  if (memoisable) {
    ElementDep dep = elementDep(e, carrier.frag.kind);
    key.second = dep == ElementDep::Column ? coordinateOffset(carrier.frag.kind, true, elem)
                 : dep == ElementDep::Row  ? int64_t{1} << 20 | coordinateOffset(carrier.frag.kind, false, elem)
                 : dep == ElementDep::None ? -1
                                           : int64_t{1} << 40 | elem;
    if (auto it = cache.memo.find(key); it != cache.memo.end()) return it->second;
  }
  Value v = elementOfUncached(e, elem, carrier, cache);
  if (memoisable) cache.memo[key] = v;
  return v;
}

Value KernelLowering::elementOfUncached(const Expr &e, unsigned elem, const ValueType &carrier, ElementwiseCache &cache) {
  auto whole = [&]() -> Value {
    auto it = cache.whole.find(&e);
    if (it == cache.whole.end()) {
      Value v = lowerExpr(e);
      std::vector<Value> parts = v.type.isFrag() ? broadcastElements(v, carrier) : std::vector<Value>{v};
      it = cache.whole.emplace(&e, std::move(parts)).first;
    }
    return it->second.size() == 1 ? it->second[0] : it->second[elem];
  };
  const bool ownLayout = e.type && e.type->isFragment() && fragKindOf(*e.type) == carrier.frag.kind;
  if (!ownLayout) return whole();
  switch (e.kind) {
  case ExprKind::Unary: {
    const auto &u = *cast<UnaryExpr>(&e);
    return unaryOp(u.op, elementOf(*u.operand, elem, carrier, cache), e.range);
  }
  case ExprKind::Binary: {
    const auto &b = *cast<BinaryExpr>(&e);
    Value l = elementOf(*b.lhs, elem, carrier, cache), r = elementOf(*b.rhs, elem, carrier, cache);
    BinaryOp op = b.op == BinaryOp::LogAnd ? BinaryOp::BitAnd : b.op == BinaryOp::LogOr ? BinaryOp::BitOr : b.op;
    return binaryOp(op, l, r, e.range);
  }
  case ExprKind::Member: {
    // Coordinates: one lane register (cached) plus the element's constant, formed where it is used.
    const auto &m = *cast<MemberExpr>(&e);
    bool column = m.member == "col";
    auto it = cache.whole.find(&e);
    if (it == cache.whole.end()) it = cache.whole.emplace(&e, std::vector<Value>{coordinateBase(carrier.frag, column, e.range)}).first;
    return binaryOp(BinaryOp::Add, it->second[0], Value::ofInt(Scalar::I32, coordinateOffset(carrier.frag.kind, column, elem)), e.range);
  }
  case ExprKind::Index: {
    const auto &ix = *cast<IndexExpr>(&e);
    if (!isGather(ix)) return whole();
    std::vector<Value> at;
    for (const auto &item : ix.items) at.push_back(elementOf(*item.start, elem, carrier, cache));
    return gatherElement(ix, at, cache.gathered);
  }
  case ExprKind::Call: {
    const auto &c = *cast<CallExpr>(&e);
    if (isLineReduction(c.callee)) return whole();
    std::vector<Value> args;
    for (const auto &a : c.args) args.push_back(elementOf(*a, elem, carrier, cache));
    if (auto t = parseValueTypeName(c.callee); t && t->isScalar()) return convert(args[0], *t, e.range);
    return intrinsicOnValues(c.callee, args, e.range);
  }
  default: return whole();
  }
}

bool KernelLowering::assignElementwise(Value &target, const Expr &value, std::optional<BinaryOp> compound, SourceRange where) {
  auto st = storageOf(target.type);
  if (!target.type.isFrag() || !st || st->elemsPerReg != 1 || !value.type || !value.type->isFragment()) return false;
  ElementwiseCache cache;
  const ValueType carrier = target.type;
  for (unsigned e = 0; e < elementCount(carrier); ++e) {
    Value v = elementOf(value, e, carrier, cache);
    if (compound) v = binaryOp(*compound, vectorElement(target, e), v, where);
    setVectorElement(target, e, v);
  }
  return true;
}

// ------------------------------------------------------------------------------------------- operands
std::vector<std::string> KernelLowering::accumulatorAsOperand(const Value &p, Scalar to, SourceRange where) {
  // Columns 16kk .. 16kk+15 of the accumulator are 8-column groups j = 2kk, 2kk+1; packed pairs (rows g, g+8)
  // of group j and j+1 are exactly registers a0..a3 of the wgmma_a fragment of k-step kk.
  Value conv = p.type.elem == to ? p : fragmentConvert(p, liftedType(p.type, to), where);
  return conv.regs;
}

} // namespace cake::codegen
