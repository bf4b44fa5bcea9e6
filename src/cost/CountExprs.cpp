// WorkCounter, expressions: lane-wise integer evaluation of CAKE expressions, the instructions they cost,
// and locating tensor accesses (base tensor, per-lane byte offset, tile extent) for loads and stores.
//
// Instruction costs (one warp instruction per entry, per vector element or fragment element for
// element-wise float work): integer ALU ops 1 (a division or remainder by a non-power-of-two constant 3,
// by a runtime value 20), float add/mul/fma/min/max/compare 1 per element on the FP32 pipe, conversions
// f32 -> 16-bit 1 per pair of elements and others 1 per element, ex2/rcp/rsqrt/sqrt/lg2 1 per element on
// the SFU, shuffles 1, warp.sum/max/min 5 shuffles + 5 ops, warp.any/all 1, a load 1, an atomic 1 plus its contention
// (CountOps.cpp, Counter::countAtomic).  Expressions that are compile-time
// constants (no dependence bits) cost nothing: codegen folds them.
#include "cost/WorkCounterImpl.h"
#include "frontend/Intrinsics.h"
#include "frontend/SharedLayout.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace cake::cost::detail {

namespace {


bool isFloatValue(const Type *t) {
  if (!t) return false;
  if (t->kind == TypeKind::UntypedFloat) return true;
  if (t->isFragment()) return true;
  if (t->isScalar() || t->isVector()) return isFloatScalar(t->scalar);
  return false;
}

// Elements an element-wise float operation touches per thread.
double elementsOf(const Type *t) {
  if (!t) return 1;
  if (t->isFragment()) return static_cast<double>(t->fragElementsPerThread());
  if (t->isVector()) return t->width;
  return 1;
}

bool is16BitFloat(ScalarKind k) { return k == ScalarKind::BF16 || k == ScalarKind::F16; }

} // namespace

std::optional<int64_t> Counter::dimValue(const TensorDim &d) {
  if (d.value) return d.value;
  if (!d.expr) return std::nullopt;
  LaneValue v = eval(*d.expr);
  if (!v.isUniform()) return std::nullopt;
  return v.scalar;
}

LaneValue Counter::eval(const Expr &e) {
  switch (e.kind) {
  case ExprKind::IntLit: return LaneValue::uniform(static_cast<int64_t>(cast<IntLitExpr>(&e)->value));
  case ExprKind::BoolLit: return LaneValue::uniform(cast<BoolLitExpr>(&e)->value ? 1 : 0);
  case ExprKind::FloatLit: return LaneValue::unknown();
  case ExprKind::Name: return evalName(*cast<NameExpr>(&e));
  case ExprKind::Member: {
    if (std::optional<BuiltinValue> b = builtinValueOf(e)) return evalBuiltin(*b, e);
    auto *m = cast<MemberExpr>(&e);
    return eval(*m->base);   // b[s].T: the tile itself (a register-free view)
  }
  case ExprKind::Unary: {
    auto *u = cast<UnaryExpr>(&e);
    LaneValue v = eval(*u->operand);
    if (isFloatValue(u->operand->type)) {
      double n = elementsOf(u->operand->type);
      issue(n);
      fp32(n * lanes(), 0);
      return LaneValue::unknown(v.deps);
    }
    LaneValue r = u->op == UnaryOp::Neg ? negate(v) : u->op == UnaryOp::Not ? logicalNot(v) : bitNot(v);
    if (!r.isConstant()) issue(1);
    return r;
  }
  case ExprKind::Binary: return evalBinary(*cast<BinaryExpr>(&e));
  case ExprKind::Index: return evalLoad(e);
  case ExprKind::Call: return evalCall(*cast<CallExpr>(&e));
  case ExprKind::List: return LaneValue::unknown();
  }
  return LaneValue::unknown();
}

LaneValue Counter::evalName(const NameExpr &n) {
  if (!n.decl) return LaneValue::unknown();
  switch (n.decl->declKind) {
  case DeclKind::CtParam: {
    auto v = static_cast<const CtParam *>(n.decl)->value;
    return v ? LaneValue::uniform(*v) : LaneValue::unknown();
  }
  case DeclKind::ShapeVar: {
    auto it = binding_.values.find(n.decl);
    return it == binding_.values.end() ? LaneValue::unknown(kDepRuntime) : LaneValue::uniform(it->second, kDepRuntime);
  }
  case DeclKind::Param: return LaneValue::unknown(kDepRuntime);
  case DeclKind::Let: case DeclKind::Var: case DeclKind::LoopVar: {
    auto it = env_.find(n.decl);
    LaneValue value = it == env_.end() ? LaneValue::unknown() : it->second;
    return rebinding_ ? rebindName(n.decl, value) : value;
  }
  case DeclKind::Builtin: {
    if (std::optional<BuiltinValue> b = builtinValueOf(n)) return evalBuiltin(*b, n);
    return LaneValue::unknown();
  }
  default: return LaneValue::unknown();
  }
}

LaneValue Counter::evalBuiltin(BuiltinValue v, const Expr &e) {
  const std::array<int64_t, 3> &g = binding_.grid;
  auto roleOfExpr = [&]() -> const RoleInfo * {
    auto *m = dynCast<MemberExpr>(&e);
    auto *base = m ? dynCast<NameExpr>(m->base.get()) : nullptr;
    if (!base || !base->decl || base->decl->declKind != DeclKind::Role) return nullptr;
    return info_.roleOf(static_cast<const RoleStmt *>(base->decl));
  };
  switch (v) {
  case BuiltinValue::TidX: return LaneValue::laneIndex(warp_ * 32, kDepWarp);
  case BuiltinValue::TidY: case BuiltinValue::TidZ: return LaneValue::uniform(0);
  case BuiltinValue::BlockX: return LaneValue::uniform(block_[0], kDepBlockX);
  case BuiltinValue::BlockY: return LaneValue::uniform(block_[1], kDepBlockY);
  case BuiltinValue::BlockZ: return LaneValue::uniform(block_[2], kDepBlockZ);
  case BuiltinValue::BlockDimX: return LaneValue::uniform(info_.threads);
  case BuiltinValue::BlockDimY: case BuiltinValue::BlockDimZ: return LaneValue::uniform(1);
  case BuiltinValue::GridDimX: return LaneValue::uniform(g[0], kDepRuntime);
  case BuiltinValue::GridDimY: return LaneValue::uniform(g[1], kDepRuntime);
  case BuiltinValue::GridDimZ: return LaneValue::uniform(g[2], kDepRuntime);
  case BuiltinValue::ClusterX: return LaneValue::uniform(block_[0] % info_.cluster[0], kDepBlockX);
  case BuiltinValue::ClusterY: return LaneValue::uniform(block_[1] % info_.cluster[1], kDepBlockY);
  case BuiltinValue::ClusterZ: return LaneValue::uniform(block_[2] % info_.cluster[2], kDepBlockZ);
  case BuiltinValue::ClusterRank:
    return LaneValue::uniform(block_[0] % info_.cluster[0] +
                                  info_.cluster[0] * (block_[1] % info_.cluster[1] +
                                                      info_.cluster[1] * (block_[2] % info_.cluster[2])),
                              kDepBlockAny);
  case BuiltinValue::Lane: return LaneValue::laneIndex(0, 0);
  case BuiltinValue::Warp: return LaneValue::uniform(warp_, kDepWarp);
  case BuiltinValue::NumSms: return LaneValue::uniform(binding_.numSms, kDepRuntime);
  case BuiltinValue::Inf: return LaneValue::unknown();
  case BuiltinValue::RoleIndex: case BuiltinValue::RoleWarp: case BuiltinValue::RoleThread: {
    const RoleInfo *r = roleOfExpr();
    if (!r || r->warpsPerInstance() <= 0) return LaneValue::unknown(kDepWarp);
    int64_t rel = warp_ - r->firstWarp;
    if (v == BuiltinValue::RoleIndex) return LaneValue::uniform(rel / r->warpsPerInstance(), kDepWarp);
    if (v == BuiltinValue::RoleWarp) return LaneValue::uniform(rel % r->warpsPerInstance(), kDepWarp);
    return LaneValue::laneIndex((rel % r->warpsPerInstance()) * 32, kDepWarp);
  }
  }
  return LaneValue::unknown();
}

LaneValue Counter::evalBinary(const BinaryExpr &b) {
  LaneValue l = eval(*b.lhs);
  LaneValue r = eval(*b.rhs);
  if (isFloatValue(b.lhs->type) || isFloatValue(b.rhs->type)) {
    double n = std::max(elementsOf(b.lhs->type), elementsOf(b.rhs->type));
    issue(n);
    fp32(n * lanes(), (b.op == BinaryOp::Add || b.op == BinaryOp::Sub || b.op == BinaryOp::Mul ||
                       b.op == BinaryOp::Div) ? n * lanes() : 0);
    if (b.op == BinaryOp::Div) add(Count::SfuLaneOps, n * lanes());   // rcp + mul
    return LaneValue::unknown(l.deps | r.deps);
  }
  std::optional<IntOp> op = intOpOf(b.op);
  if (!op) return LaneValue::unknown(l.deps | r.deps);
  LaneValue v = applyIntOp(*op, l, r);
  if (!v.isConstant()) {
    double cost = 1;
    if (b.op == BinaryOp::Div || b.op == BinaryOp::Rem) {
      if (r.isConstant() && r.scalar > 0 && std::has_single_bit(static_cast<uint64_t>(r.scalar))) cost = 1;
      else if (r.isUniform() && r.deps == 0) cost = 3;
      else cost = 20;
    }
    issue(cost);
  }
  return v;
}

namespace {

// What an intrinsic call computes, by its typing rule (Intrinsics.def).
enum class CallKind : uint8_t { Sfu, Fma, MinMaxAbsSelect, Cdiv, Shuffle, WarpReduce, WarpVote, RowReduce, ColReduce, Other };

CallKind callKindOf(const std::string &callee) {
  const IntrinsicInfo *intrinsic = lookupIntrinsic(callee);
  if (!intrinsic) return CallKind::Other;
  switch (intrinsic->rule) {
  case IntrinsicRule::FloatUnary: return CallKind::Sfu;
  case IntrinsicRule::Fma: return CallKind::Fma;
  case IntrinsicRule::NumericUnary: case IntrinsicRule::SameType2: case IntrinsicRule::Select:
    return CallKind::MinMaxAbsSelect;
  case IntrinsicRule::IntBinary: return CallKind::Cdiv;
  case IntrinsicRule::Shuffle: return CallKind::Shuffle;
  case IntrinsicRule::WarpReduce: return CallKind::WarpReduce;
  case IntrinsicRule::WarpVote: return CallKind::WarpVote;
  case IntrinsicRule::RowReduce: return CallKind::RowReduce;
  case IntrinsicRule::ColReduce: return CallKind::ColReduce;
  default: return CallKind::Other;
  }
}

// SASS instructions ptxas makes of one element of an SFU intrinsic (FloatMath.def).
double sfuInstructionsOf(const std::string &callee) {
  const FloatMathInfo *math = floatMathOf(callee);
  return math ? math->sassInstructions : 1;
}

} // namespace

LaneValue Counter::evalCall(const CallExpr &c) {
  if (c.callee.rfind("atom.", 0) == 0 && !c.args.empty()) {   // the target is an address, not a load
    for (size_t i = 1; i < c.args.size(); ++i) eval(*c.args[i]);
    countAtomic(*c.args[0], &c);
    return LaneValue::unknown(kDepUnknown);
  }
  std::vector<LaneValue> args;
  args.reserve(c.args.size());
  for (const auto &a : c.args) args.push_back(eval(*a));
  uint32_t deps = 0;
  for (const LaneValue &a : args) deps |= a.deps;
  const Type *argType = c.args.empty() ? nullptr : c.args[0]->type;
  double n = std::max(elementsOf(c.type), elementsOf(argType));
  double active = lanes();
  const std::string &f = c.callee;
  const CallKind kind = callKindOf(f);
  if (kind == CallKind::Sfu) {
    issue(n * sfuInstructionsOf(f));
    add(Count::SfuLaneOps, n * active);
    return LaneValue::unknown(deps);
  }
  if (kind == CallKind::Fma) {
    issue(n);
    fp32(n * active, 2 * n * active);
    return LaneValue::unknown(deps);
  }
  if (kind == CallKind::MinMaxAbsSelect) {
    if (isFloatValue(c.type)) {
      issue(n);
      fp32(n * active, 0);
      return LaneValue::unknown(deps);
    }
    LaneValue v = LaneValue::unknown(deps);
    if (f == "max" && args.size() == 2) v = applyIntOp(IntOp::Max, args[0], args[1]);
    else if (f == "min" && args.size() == 2) v = applyIntOp(IntOp::Min, args[0], args[1]);
    else if (f == "select" && args.size() == 3) v = selectValue(args[0], args[1], args[2]);
    else if (f == "abs" && args.size() == 1)
      v = selectValue(applyIntOp(IntOp::Lt, args[0], LaneValue::uniform(0)), negate(args[0]), args[0]);
    if (!v.isConstant()) issue(1);
    return v;
  }
  if (kind == CallKind::Cdiv && args.size() == 2) {
    LaneValue v = applyIntOp(IntOp::Div, applyIntOp(IntOp::Add, args[0], applyIntOp(IntOp::Sub, args[1], LaneValue::uniform(1))), args[1]);
    if (!v.isConstant()) issue(3);
    return v;
  }
  if (kind == CallKind::Shuffle) {
    issue(1);
    return LaneValue::unknown(deps);
  }
  if (kind == CallKind::RowReduce || kind == CallKind::ColReduce) {
    // Fold the thread's elements of each line (its two rows, or its columns: two elements each), then per
    // line a shuffle + combine for each of the lanes' butterfly steps (2 across a quad, 3 across a column).
    const double elements = elementsOf(argType);
    const double lines = kind == CallKind::RowReduce ? 2 : elements / 2;   // a column vector: N / 4 of N / 2 elements
    const double steps = kind == CallKind::RowReduce ? 2 : 3;
    double folds = std::max(elements - lines, 0.0) + lines * steps;
    issue(folds + lines * steps);
    if (isFloatValue(c.type)) fp32(folds * active, folds * active);
    return LaneValue::unknown(deps);
  }
  if (kind == CallKind::WarpVote) {
    issue(1);
    return LaneValue::unknown(deps);
  }
  if (kind == CallKind::WarpReduce) {
    issue(10);
    if (isFloatValue(c.type)) fp32(5 * active, 5 * active);
    return LaneValue::unknown(deps);
  }
  // conversions, named by the target type
  if (c.type && (c.type->isScalar() || c.type->isVector() || c.type->isFragment())) {
    if (c.type->isInteger() && argType && argType->isInteger()) return args.empty() ? LaneValue::unknown() : args[0];
    if (args.size() >= 2) {   // packing bf16x2(a, b)
      issue(1);
      fp32(active, 0);
      return LaneValue::unknown(deps);
    }
    ScalarKind to = c.type->elementScalar();
    ScalarKind from = argType ? argType->elementScalar() : to;
    if (to == from && argType && !argType->isUntyped()) return LaneValue::unknown(deps);   // no-op
    double instr = is16BitFloat(to) && from == ScalarKind::F32 ? std::ceil(n / 2) : n;
    if (argType && argType->isUntyped()) instr = 0;   // a constant, materialised by codegen
    issue(instr);
    fp32(instr * active, 0);
    return LaneValue::unknown(deps);
  }
  return LaneValue::unknown(deps);
}

// Locates base[i, j +: n][...] (and tile views, b[s].T) in its tensor.
ResolvedAccess Counter::resolve(const Expr &e) {
  ResolvedAccess ra;
  std::vector<const IndexExpr *> chain;
  const Expr *cur = &e;
  for (unsigned guard = 0; guard < 64; ++guard) {
    if (auto *ix = dynCast<IndexExpr>(cur)) {
      chain.push_back(ix);
      cur = ix->base.get();
    } else if (auto *m = dynCast<MemberExpr>(cur); m && !builtinValueOf(*m)) {
      cur = m->base.get();
    } else {
      break;
    }
  }
  auto *name = dynCast<NameExpr>(cur);
  if (!name || !name->decl || !name->decl->type) return ra;
  const Type *t = name->decl->type;
  if (!t->isTensor() || t->space == AddressSpace::Register) {
    // a register array or vector: the indices still cost their arithmetic when they are not constant
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
      for (const IndexItem &item : (*it)->items)
        if (item.start) eval(*item.start);
    return ra;
  }
  ra.memory = true;
  ra.base = name->decl;
  ra.space = t->space;
  ra.elemBytes = t->element ? t->element->sizeInBytes().value_or(1) : 1;
  std::vector<TensorDim> dims = t->allDims();
  std::vector<LaneValue> strides(dims.size(), LaneValue::uniform(1));
  const TensorParamInfo *tensor = nullptr;
  if (name->decl->declKind == DeclKind::Param) tensor = info_.tensorParamOf(static_cast<const Param *>(name->decl));
  if (tensor && tensor->strides.size() == dims.size()) {
    for (size_t i = 0; i < dims.size(); ++i) strides[i] = eval(*tensor->strides[i]);
  } else {
    LaneValue s = LaneValue::uniform(1);
    for (size_t i = dims.size(); i-- > 0;) {
      strides[i] = s;
      std::optional<int64_t> d = dimValue(dims[i]);
      s = d ? applyIntOp(IntOp::Mul, s, LaneValue::uniform(*d)) : LaneValue::unknown();
    }
  }
  std::vector<const IndexItem *> items;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    for (const IndexItem &item : (*it)->items) items.push_back(&item);
  LaneValue offset = LaneValue::uniform(0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const IndexItem *item = i < items.size() ? items[i] : nullptr;
    if (item && item->kind != IndexItem::Full && item->start) {
      LaneValue idx = eval(*item->start);
      offset = applyIntOp(IntOp::Add, offset, applyIntOp(IntOp::Mul, idx, strides[i]));
      if (item->kind == IndexItem::Slice && item->length) {
        LaneValue len = eval(*item->length);
        ra.tileElements *= len.isUniform() ? std::max<int64_t>(1, len.scalar) : 1;
      }
    } else {
      ra.tileElements *= dimValue(dims[i]).value_or(1);
    }
  }
  ra.deps = offset.deps;
  ra.byteOffset = applyIntOp(IntOp::Mul, offset, LaneValue::uniform(ra.elemBytes));
  if (ra.space == AddressSpace::Shared && name->decl->declKind == DeclKind::Shared) {
    ra.shared = info_.sharedOf(static_cast<const SharedStmt *>(name->decl));
    if (ra.shared) ra.byteOffset = applyIntOp(IntOp::Add, ra.byteOffset, LaneValue::uniform(ra.shared->offset));
  }
  return ra;
}

LaneValue Counter::evalLoad(const Expr &e) {
  // A column slice of an accumulator (`store`'s source bf16(acc)[:, c0 +: n]) selects registers: no load.
  if (const auto *ix = dynCast<IndexExpr>(&e); ix && ix->base->type && ix->base->type->isFragment()) return eval(*ix->base);
  if (rebinding_) {   // an address read from memory: the footprint is not followed
    rebinding_->failed = true;
    return LaneValue::unknown();
  }
  ResolvedAccess ra = resolve(e);
  if (!ra.memory) return LaneValue::unknown();
  int64_t bytes = e.type ? e.type->sizeInBytes().value_or(ra.elemBytes) : ra.elemBytes;
  issue(e.type && e.type->isFragment() ? elementsOf(e.type) : 1);   // a gather: one load per element
  if (ra.space == AddressSpace::Global) {
    globalAccess(&e, ra, bytes, false, Count::SimtLoadBytes, true);
    if ((ra.deps & blockLoopBits_) && active_) probeWaveFootprint(siteFor(&e, ra.base, false), e);
  } else {
    sharedAccess(ra, bytes, false);
  }
  return LaneValue::unknown(ra.deps);
}

size_t Counter::siteFor(const void *node, const Decl *tensor, bool store) {
  auto it = siteIndex_.find(node);
  if (it != siteIndex_.end()) return it->second;
  size_t id = sites_.size();
  SiteInfo info;
  info.node = node;
  info.tensor = tensor;
  info.store = store;
  sites_.push_back(std::move(info));
  siteIndex_[node] = id;
  return id;
}

void Counter::globalAccess(const void *node, const ResolvedAccess &ra, int64_t bytesPerLane, bool store, Count kind,
                           bool synchronous) {
  if (!active_) return;
  double bytes = static_cast<double>(bytesPerLane) * lanes();
  double sectors = static_cast<double>(globalSectors(ra.byteOffset, bytesPerLane, active_));
  add(kind, bytes);
  add(store ? Count::L2StoreBytes : Count::L2LoadBytes, sectors * 32);
  size_t site = siteFor(node, ra.base, store);
  sites_[site].blockDeps |= ra.deps & kDepBlockAny;
  if (acc_.siteBytes.size() <= site) acc_.siteBytes.resize(site + 1, 0);
  acc_.siteBytes[site] += bytes * localWeight_;
  if (!store && synchronous) {
    roundHasLoad_ = true;
    roundBytes_ += bytes;
  }
}

std::optional<LaneValue> physicalSharedOffsets(const ResolvedAccess &ra) {
  if (!ra.shared || !ra.shared->swizzleBytes || !ra.shared->decl || !ra.shared->decl->type) return ra.byteOffset;
  if (ra.byteOffset.kind == LaneValue::Kind::Unknown) return std::nullopt;
  std::vector<TensorDim> dims = ra.shared->decl->type->allDims();
  ColumnBlocks l;
  l.cols = dims.empty() ? 0 : dims.back().value.value_or(0);
  l.rows = dims.size() >= 2 ? dims[dims.size() - 2].value.value_or(0) : 1;
  l.elemBytes = std::max<int64_t>(1, ra.elemBytes);
  l.span = ra.shared->swizzleBytes;
  const int64_t base = ra.shared->offset;
  auto map = [&](int64_t off) { return base + l.physical(off - base); };
  LaneValue v = ra.byteOffset;
  if (v.kind == LaneValue::Kind::Uniform) v.scalar = map(v.scalar);
  else for (int64_t &x : v.lanes) x = map(x);
  return v;
}

// A swizzled array's accesses are counted at their physical addresses (column blocks and the XOR,
// SharedLayout.h); where the lanes' offsets are unknown, as conflict-free.
void Counter::sharedAccess(const ResolvedAccess &ra, int64_t bytesPerLane, bool store) {
  if (!active_) return;
  double bytes = static_cast<double>(bytesPerLane) * lanes();
  std::optional<LaneValue> phys = physicalSharedOffsets(ra);
  double wavefronts = static_cast<double>(!phys ? idealWavefronts(bytesPerLane, active_)
                                                : sharedWavefronts(*phys, bytesPerLane, active_));
  add(store ? Count::SharedStoreBytes : Count::SharedLoadBytes, bytes);
  add(Count::SharedWavefronts, wavefronts);
}

} // namespace cake::cost::detail
