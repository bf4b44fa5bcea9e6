// ExprToZ3: typed-AST expressions -> Z3 terms (see ExprToZ3.h for the semantics chosen).
#include "frontend/Limits.h"
#include "verify/ExprToZ3.h"

#include "frontend/Builtins.h"
#include "frontend/TensorWrites.h"
#include "frontend/Types.h"
#include "verify/Z3Terms.h"

#include <algorithm>
#include <set>

namespace cake {

namespace {

constexpr unsigned kMaxDepth = kMaxExprDepth;
constexpr int64_t kI32Max = 2147483647;

bool isUnsignedType(const Type *t) {
  return t && t->kind == TypeKind::Scalar && t->scalar == ScalarKind::U32;
}

// x & c for a constant c, in integer arithmetic: bit b of a two's-complement integer x is floor(x / 2^b) mod 2,
// so each run of set bits lo..hi of c contributes 2^lo * (floor(x / 2^lo) mod 2^(hi - lo + 1)), and a negative
// c keeps x less the bits of ~c.  Floor division and modulus by constants are linear for the solver, where the
// 64-bit bit-vectors of the general case (a mask such as `k & 2` in a stage index) took seconds per query.
z3::expr maskedBy(z3::context &ctx, const z3::expr &x, int64_t c) {
  if (c < 0) return x - maskedBy(ctx, x, ~c);
  z3::expr sum = ctx.int_val(0);
  bool any = false;
  for (int lo = 0; lo < 63;) {
    if (!((c >> lo) & 1)) {
      ++lo;
      continue;
    }
    int hi = lo;
    while (hi + 1 < 63 && ((c >> (hi + 1)) & 1)) ++hi;
    z3::expr shifted = lo == 0 ? x : x / ctx.int_val(int64_t(1) << lo);   // Int `/` is floor for a positive divisor
    z3::expr run = z3::mod(shifted, ctx.int_val(int64_t(1) << (hi - lo + 1)));
    if (lo > 0) run = run * ctx.int_val(int64_t(1) << lo);
    sum = any ? sum + run : run;
    any = true;
    lo = hi + 1;
  }
  return sum;
}

} // namespace

ExprToZ3::ExprToZ3(z3::context &ctx, const KernelInfo &info) : ctx_(ctx), info_(info) {}

void ExprToZ3::bind(const Decl *decl, const z3::expr &value) {
  bound_.erase(decl);
  bound_.emplace(decl, value);
  lets_.clear();   // a memoised let may mention decl
}

void ExprToZ3::unbind(const Decl *decl) {
  bound_.erase(decl);
  lets_.clear();
}

z3::expr ExprToZ3::newVar(const std::string &name, int64_t lo, std::optional<int64_t> hiExclusive) {
  std::string unique = name;
  for (int i = 2; std::any_of(freeVars_.begin(), freeVars_.end(), [&](auto &v) { return v.first == unique; }); ++i)
    unique = name + "#" + std::to_string(i);
  z3::expr v = ctx_.int_const(unique.c_str());
  sideConditions_.push_back(v >= ctx_.int_val(lo));
  if (hiExclusive) sideConditions_.push_back(v < ctx_.int_val(*hiExclusive));
  // Unbounded above: IntervalBounds' largest endpoint, so that sums and products of it have no range.
  freeVarRanges_[v.id()] = IntRange{lo, hiExclusive ? *hiExclusive - 1 : kRangeUnbounded};
  freeVars_.emplace_back(unique, v);
  return v;
}

void ExprToZ3::assumeBounds(const z3::expr &fact) {
  if (!fact.is_app()) return;
  Z3_decl_kind kind = fact.decl().decl_kind();
  if (kind == Z3_OP_AND) {
    for (unsigned i = 0; i < fact.num_args(); ++i) assumeBounds(fact.arg(i));
    return;
  }
  if (fact.num_args() != 2 || !(kind == Z3_OP_LE || kind == Z3_OP_LT || kind == Z3_OP_GE || kind == Z3_OP_GT ||
                                kind == Z3_OP_EQ))
    return;
  // x OP c, or c OP x (then OP mirrored).
  z3::expr x = fact.arg(0), c = fact.arg(1);
  if (!x.is_const() || x.is_numeral()) {
    std::swap(x, c);
    switch (kind) {
    case Z3_OP_LE: kind = Z3_OP_GE; break;
    case Z3_OP_LT: kind = Z3_OP_GT; break;
    case Z3_OP_GE: kind = Z3_OP_LE; break;
    case Z3_OP_GT: kind = Z3_OP_LT; break;
    default: break;
    }
  }
  if (!x.is_const() || x.is_numeral() || !x.is_int()) return;
  auto range = freeVarRanges_.find(x.id());
  std::optional<int64_t> bound = constantOf(c);
  if (range == freeVarRanges_.end() || !bound || *bound <= -kRangeUnbounded || *bound >= kRangeUnbounded) return;
  IntRange &r = range->second;
  switch (kind) {
  case Z3_OP_LE: r.hi = std::min(r.hi, *bound); break;
  case Z3_OP_LT: r.hi = std::min(r.hi, *bound - 1); break;
  case Z3_OP_GE: r.lo = std::max(r.lo, *bound); break;
  case Z3_OP_GT: r.lo = std::max(r.lo, *bound + 1); break;
  case Z3_OP_EQ: r.lo = std::max(r.lo, *bound), r.hi = std::min(r.hi, *bound); break;
  default: break;
  }
}

bool ExprToZ3::nonNegativeOverPositive(const z3::expr &a, const z3::expr &b) {
  auto ra = rangeOf(a), rb = rangeOf(b);
  return ra && rb && ra->lo >= 0 && rb->lo > 0;
}

// A term without free constants (numerals, true / false and operations on them), memoised.
bool ExprToZ3::closedTerm(const z3::expr &e) const {
  if (e.is_numeral()) return true;
  if (!e.is_app()) return false;
  if (auto it = constants_.find(e.id()); it != constants_.end()) return it->second.closed;
  bool closed;
  if (e.num_args() == 0) {
    Z3_decl_kind k = e.decl().decl_kind();
    closed = k == Z3_OP_TRUE || k == Z3_OP_FALSE;   // otherwise a free constant
  } else {
    closed = true;
    for (unsigned i = 0; closed && i < e.num_args(); ++i) closed = closedTerm(e.arg(i));
  }
  std::optional<int64_t> value;
  int64_t v = 0;
  if (closed && e.simplify().is_numeral_i64(v)) value = v;
  constants_.emplace(e.id(), ConstantInfo{e, closed, value});
  return closed;
}

// The value of a term without free constants; a term with one is not a constant (even x - x).
std::optional<int64_t> ExprToZ3::constantOf(const z3::expr &e) const {
  int64_t v = 0;
  if (e.is_numeral_i64(v)) return v;
  if (!closedTerm(e)) return std::nullopt;
  auto it = constants_.find(e.id());
  return it == constants_.end() ? std::nullopt : it->second.value;
}

z3::expr ExprToZ3::builtinVar(BuiltinValue value, const RoleStmt *role) {
  auto key = std::make_pair(static_cast<int>(value), role);
  if (auto it = builtins_.find(key); it != builtins_.end()) return it->second;
  const RoleInfo *ri = role ? info_.roleOf(role) : nullptr;
  int64_t threads = info_.threads > 0 ? info_.threads : 1024;
  int64_t clusterSize = info_.clusterCtas();
  std::string name(builtinValueName(value));
  if (ri && name.rfind("ROLE", 0) == 0) name = ri->name + name.substr(4);
  auto gridVar = [&](size_t dim) {
    z3::expr v = newVar(name, 0, std::nullopt);
    if (dim < info_.grid.size() && info_.grid[dim]) {
      TranslateFailure ignored;
      if (auto g = tr(*info_.grid[dim], ignored, 0)) {
        sideConditions_.push_back(v < *g);
        // The index's interval (not a solver fact: the solver has v < g): below the grid expression's own
        // range where interval arithmetic bounds it (cdiv(N, 128) with N < 2^31), so that wrap-around checks
        // of block.x * BM + tid.x pass without a solver call.
        if (std::optional<IntRange> gr = rangeOf(*g); gr && gr->hi >= 1) freeVarRanges_[v.id()].hi = gr->hi - 1;
      }
    } else {
      sideConditions_.push_back(v == 0);
    }
    return v;
  };
  z3::expr v = ctx_.int_val(0);
  switch (value) {
  case BuiltinValue::TidX: v = newVar(name, 0, threads); break;
  case BuiltinValue::TidY: case BuiltinValue::TidZ: v = ctx_.int_val(0); break;
  case BuiltinValue::BlockX: v = gridVar(0); break;
  case BuiltinValue::BlockY: v = gridVar(1); break;
  case BuiltinValue::BlockZ: v = gridVar(2); break;
  case BuiltinValue::BlockDimX: v = ctx_.int_val(threads); break;
  case BuiltinValue::BlockDimY: case BuiltinValue::BlockDimZ: v = ctx_.int_val(1); break;
  case BuiltinValue::GridDimX: case BuiltinValue::GridDimY: case BuiltinValue::GridDimZ: {
    size_t dim = value == BuiltinValue::GridDimX ? 0 : value == BuiltinValue::GridDimY ? 1 : 2;
    TranslateFailure ignored;
    std::optional<z3::expr> g;
    if (dim < info_.grid.size() && info_.grid[dim]) g = tr(*info_.grid[dim], ignored, 0);
    v = g ? *g : (dim < info_.grid.size() ? newVar(name, 1, std::nullopt) : ctx_.int_val(1));
    break;
  }
  case BuiltinValue::ClusterRank: v = newVar(name, 0, clusterSize); break;
  case BuiltinValue::ClusterX: v = newVar(name, 0, info_.cluster[0]); break;
  case BuiltinValue::ClusterY: v = newVar(name, 0, info_.cluster[1]); break;
  case BuiltinValue::ClusterZ: v = newVar(name, 0, info_.cluster[2]); break;
  case BuiltinValue::Lane: v = newVar(name, 0, 32); break;
  case BuiltinValue::Warp: v = newVar(name, 0, (threads + 31) / 32); break;
  case BuiltinValue::NumSms: v = newVar(name, 1, 1025); break;
  case BuiltinValue::RoleIndex: v = newVar(name, 0, ri ? std::max<int64_t>(ri->instances, 1) : 1024); break;
  case BuiltinValue::RoleWarp: v = newVar(name, 0, ri ? std::max<int64_t>(ri->warpsPerInstance(), 1) : 32); break;
  case BuiltinValue::RoleThread: v = newVar(name, 0, ri ? std::max<int64_t>(ri->threadsPerInstance(), 1) : 1024); break;
  case BuiltinValue::Inf: v = ctx_.int_val(0); break;   // not an integer; callers reject float types first
  }
  builtins_.emplace(key, v);
  return v;
}

z3::expr ExprToZ3::declVar(const Decl *decl) {
  if (auto it = bound_.find(decl); it != bound_.end()) return it->second;
  z3::expr v = ctx_.int_val(0);
  switch (decl->declKind) {
  case DeclKind::ShapeVar: v = newVar(decl->name, 1, kI32Max + 1); break;
  case DeclKind::LoopVar: {
    // The PTX loop runs while v < upper, and upper is a value of the loop's type, so v stays below that
    // type's maximum even where the bound itself cannot be translated (the bound's own wrap-around is
    // checked where it is computed, E0670). i64 loop variables keep no such bound.
    const Type *t = decl->type;
    std::optional<int64_t> below;
    if (t && t->kind == TypeKind::Scalar && t->scalar == ScalarKind::I32) below = kI32Max;
    if (isUnsignedType(t)) below = (int64_t(1) << 32) - 1;
    int64_t from = isUnsignedType(t) ? 0 : INT32_MIN;
    auto *loop = static_cast<const ForStmt *>(decl);
    TranslateFailure ignored;
    // The lower bound's least value and a constant upper bound narrow the variable's own range (the side
    // conditions below say the same to Z3; a non-constant upper bound's range made some proofs slower).
    bound_.emplace(decl, ctx_.int_val(0));   // recursion guard while the bounds are translated
    if (loop->lower && loop->upper && below)
      if (auto lo = tr(*loop->lower, ignored, 0))
        if (auto hi = tr(*loop->upper, ignored, 0)) {
          std::optional<IntRange> l = rangeOf(*lo), h = rangeOf(*hi);
          if (l && l->lo > from && l->lo < *below) from = l->lo;
          if (h && h->lo == h->hi && h->hi < *below && h->hi > from) below = h->hi;
        }
    v = newVar(decl->name, from, below);
    bound_.insert_or_assign(decl, v);   // bounds may not mention the variable itself, but guard recursion anyway
    loopVariableIds_.insert(v.id());
    // Translated first: a bound may create other constants (an enclosing loop's variable) with their own
    // side conditions.
    std::vector<z3::expr> bounds;
    std::optional<z3::expr> lo = loop->lower ? tr(*loop->lower, ignored, 0) : std::nullopt;
    if (lo) bounds.push_back(v >= *lo);
    if (loop->upper)
      if (auto hi = tr(*loop->upper, ignored, 0)) bounds.push_back(v < *hi);
    if (loop->step && lo)
      if (auto st = tr(*loop->step, ignored, 0))
        if (auto c = constantOf(*st); c && *c > 0) bounds.push_back(z3::mod(v - *lo, *st) == 0);
    for (const z3::expr &b : bounds) {
      LoopBound entry{v.id(), {}};
      for (const z3::expr &c : freeConstants({b}))
        if (isLoopVariable(c)) entry.loopVariables.push_back(c.id());
      loopBounds_.emplace(sideConditions_.size(), std::move(entry));
      sideConditions_.push_back(b);
    }
    return v;
  }
  default: {
    bool isUnsigned = isUnsignedType(decl->type);
    v = newVar(decl->name, isUnsigned ? 0 : INT32_MIN, isUnsigned ? int64_t(1) << 32 : kI32Max + 1);
    break;
  }
  }
  bound_.emplace(decl, v);
  return v;
}

z3::expr ExprToZ3::divide(const z3::expr &a, const z3::expr &b, bool isUnsigned) {
  if (isUnsigned) return a / b;   // Z3 Int division is Euclidean: floor for b > 0
  if (nonNegativeOverPositive(a, b)) return a / b;   // truncation = floor there: no ite for the solver
  // Truncation toward zero: |a| / |b| with the sign of a*b.
  z3::expr absA = z3::ite(a >= 0, a, -a), absB = z3::ite(b >= 0, b, -b);
  z3::expr q = absA / absB;
  return z3::ite((a >= 0) == (b >= 0), q, -q);
}

z3::expr ExprToZ3::remainder(const z3::expr &a, const z3::expr &b, bool isUnsigned) {
  if (isUnsigned || nonNegativeOverPositive(a, b)) return z3::mod(a, b);
  return a - b * divide(a, b, false);
}

std::optional<z3::expr> ExprToZ3::translate(const Expr &e, TranslateFailure *failure) {
  TranslateFailure local;
  std::optional<z3::expr> r = tr(e, failure ? *failure : local, 0);
  return r;
}

std::optional<z3::expr> ExprToZ3::tr(const Expr &e, TranslateFailure &f, unsigned depth) {
  auto fail = [&](std::string why, const Expr *at) -> std::optional<z3::expr> {
    if (f.reason.empty()) {
      f.reason = std::move(why);
      f.culprit = at;
    }
    return std::nullopt;
  };
  if (depth > kMaxDepth) return fail("expression is nested too deeply", &e);
  // An integer fragment (tile coordinates and what is computed from them) stands for any one of its elements.
  const bool integerFragment = e.type && e.type->isFragment() && isIntegerScalar(e.type->scalar);
  if (e.type && (e.type->isFloat() || e.type->isVector() || (e.type->isFragment() && !integerFragment) || e.type->isTensor()))
    return fail("a " + typeToString(e.type) + " value is not an integer", &e);

  switch (e.kind) {
  case ExprKind::IntLit: {
    uint64_t v = cast<IntLitExpr>(&e)->value;
    if (v > uint64_t(INT64_MAX)) return fail("integer literal out of range", &e);
    return ctx_.int_val(static_cast<int64_t>(v));
  }
  case ExprKind::BoolLit: return ctx_.bool_val(cast<BoolLitExpr>(&e)->value);
  case ExprKind::FloatLit: return fail("a float literal is not an integer", &e);
  case ExprKind::Name: {
    auto *n = cast<NameExpr>(&e);
    const Decl *d = n->decl;
    if (!d) return fail("unresolved name '" + n->name + "'", &e);
    if (auto it = bound_.find(d); it != bound_.end()) return it->second;
    switch (d->declKind) {
    case DeclKind::CtParam: {
      auto *p = static_cast<const CtParam *>(d);
      if (p->value) return ctx_.int_val(*p->value);
      if (auto it = info_.ctValues.find(p->name); it != info_.ctValues.end()) return ctx_.int_val(it->second);
      return fail("compile-time parameter '" + p->name + "' has no value", &e);
    }
    case DeclKind::ShapeVar: case DeclKind::LoopVar: return declVar(d);
    case DeclKind::Param: {
      if (!d->type || !(d->type->isInteger())) return fail("parameter '" + d->name + "' is not an integer", &e);
      return declVar(d);
    }
    case DeclKind::Let: {
      auto *let = static_cast<const LetStmt *>(d);
      if (!let->init) return fail("let '" + d->name + "' has no initialiser", &e);
      if (std::find(inProgress_.begin(), inProgress_.end(), d) != inProgress_.end())
        return fail("let '" + d->name + "' refers to itself", &e);
      // Memoised until the next bind()/unbind(): a let used k times is translated once, so a chain of
      // lets that each use the previous one several times stays linear (Z3 terms share sub-terms).
      if (auto it = lets_.find(d); it != lets_.end()) {
        if (!it->second.value && f.reason.empty()) f = it->second.failure;
        return it->second.value;
      }
      inProgress_.push_back(d);
      TranslateFailure own;
      std::optional<z3::expr> v = tr(*let->init, own, depth + 1);
      inProgress_.pop_back();
      if (!v && f.reason.empty()) f = own;
      lets_.emplace(d, LetTranslation{v, own});
      return v;
    }
    case DeclKind::Var: return fail("mutable variable '" + d->name + "' is not tracked by the verifier", &e);
    case DeclKind::Builtin: {
      if (auto bv = builtinValueOf(e)) {
        if (*bv == BuiltinValue::Inf) return fail("'inf' is not an integer", &e);
        return builtinVar(*bv);
      }
      return fail("'" + d->name + "' is not a value", &e);
    }
    default: return fail("'" + d->name + "' is not an integer value", &e);
    }
  }
  case ExprKind::Member: {
    auto bv = builtinValueOf(e);
    const auto &member = *cast<MemberExpr>(&e);
    const Type *ft = member.base ? member.base->type : nullptr;
    if (!bv && ft && (ft->isAccLayout() || ft->isRowOrColVector()) && (member.member == "row" || member.member == "col")) {
      // A fragment's coordinates: every element's row lies in [0, M), its column in [0, N).  One fresh
      // variable per occurrence, so a claim proven for it holds for every element.
      return newVar(member.member == "row" ? "frag.row" : "frag.col", 0, member.member == "row" ? ft->m : ft->n);
    }
    if (!bv) return fail("member expression is not an integer builtin", &e);
    const RoleStmt *role = nullptr;
    if (*bv == BuiltinValue::RoleIndex || *bv == BuiltinValue::RoleWarp || *bv == BuiltinValue::RoleThread) {
      auto *base = cast<NameExpr>(cast<MemberExpr>(&e)->base.get());
      role = static_cast<const RoleStmt *>(base->decl);
      if (auto it = bound_.find(base->decl); it != bound_.end() && *bv == BuiltinValue::RoleIndex) return it->second;
    }
    return builtinVar(*bv, role);
  }
  case ExprKind::Unary: {
    auto *u = cast<UnaryExpr>(&e);
    auto x = tr(*u->operand, f, depth + 1);
    if (!x) return std::nullopt;
    switch (u->op) {
    case UnaryOp::Neg: return -*x;
    case UnaryOp::Not: return x->is_bool() ? !*x : std::optional<z3::expr>(*x == 0);
    case UnaryOp::BitNot: return x->is_bool() ? !*x : std::optional<z3::expr>(-*x - 1);   // ~x = -x - 1
    }
    return std::nullopt;
  }
  case ExprKind::Binary: return trBinary(*cast<BinaryExpr>(&e), f, depth);
  case ExprKind::Call: return trCall(*cast<CallExpr>(&e), f, depth);
  case ExprKind::Index: return fail("a value read from memory is not known to the verifier", &e);
  case ExprKind::List: return fail("a list is not an integer", &e);
  }
  return fail("unsupported expression", &e);
}

std::optional<z3::expr> ExprToZ3::trBinary(const BinaryExpr &b, TranslateFailure &f, unsigned depth) {
  TranslateFailure lhsFailure;
  auto l = tr(*b.lhs, lhsFailure, depth + 1);
  if (!l) {
    // `x % C` (x unsigned) and `x & C` (C >= 0) lie in [0, C) / [0, C] whatever x is: a value read from
    // memory (a histogram bin, a hashed slot) becomes a fresh variable in that range.
    const bool rem = b.op == BinaryOp::Rem && isUnsignedType(b.lhs->type);
    if (rem || b.op == BinaryOp::BitAnd) {
      TranslateFailure ignored;
      auto r = tr(*b.rhs, ignored, depth + 1);
      std::optional<int64_t> c = r ? constantOf(r->simplify()) : std::nullopt;
      if (c && (rem ? *c >= 1 : *c >= 0) && *c < (int64_t(1) << 40)) return maskedValue(b, 0, rem ? *c : *c + 1);
      // `x % n` with n symbolic (a label modulo the cluster count K): in [0, n) whenever n > 0.
      if (rem && r && !c) return maskedValue(b, 0, std::nullopt, *r);
    }
    if (f.reason.empty()) f = lhsFailure;
    return std::nullopt;
  }
  auto r = tr(*b.rhs, f, depth + 1);
  if (!r) return std::nullopt;
  auto fail = [&](std::string why) -> std::optional<z3::expr> {
    if (f.reason.empty()) {
      f.reason = std::move(why);
      f.culprit = &b;
    }
    return std::nullopt;
  };
  bool isUnsigned = isUnsignedType(b.type) || (isUnsignedType(b.lhs->type) && isUnsignedType(b.rhs->type));
  bool boolOperands = l->is_bool() && r->is_bool();
  if (l->is_bool() != r->is_bool()) return fail("operands of different kinds (pred and integer)");
  std::optional<int64_t> rc = constantOf(*r), lc = constantOf(*l);
  switch (b.op) {
  case BinaryOp::Add: return *l + *r;
  case BinaryOp::Sub: return *l - *r;
  case BinaryOp::Mul: return *l * *r;
  case BinaryOp::Div: return divide(*l, *r, isUnsigned);
  case BinaryOp::Rem: return remainder(*l, *r, isUnsigned);
  case BinaryOp::Eq: return *l == *r;
  case BinaryOp::Ne: return *l != *r;
  case BinaryOp::Lt: return *l < *r;
  case BinaryOp::Le: return *l <= *r;
  case BinaryOp::Gt: return *l > *r;
  case BinaryOp::Ge: return *l >= *r;
  case BinaryOp::LogAnd: return *l && *r;
  case BinaryOp::LogOr: return *l || *r;
  case BinaryOp::Shl:
    if (rc && *rc >= 0 && *rc < 63) return *l * ctx_.int_val(int64_t(1) << *rc);
    break;
  case BinaryOp::Shr:
    if (rc && *rc >= 0 && *rc < 63) return *l / ctx_.int_val(int64_t(1) << *rc);   // floor = arithmetic shift
    break;
  // With a constant operand c: x & c by runs of bits (maskedBy), x | c = x + c - (x & c), x ^ c = x + c - 2 (x & c).
  case BinaryOp::BitAnd:
    if (boolOperands) return *l && *r;
    if (rc) return maskedBy(ctx_, *l, *rc);
    if (lc) return maskedBy(ctx_, *r, *lc);
    break;
  case BinaryOp::BitOr:
    if (boolOperands) return *l || *r;
    if (rc) return *l + *r - maskedBy(ctx_, *l, *rc);
    if (lc) return *l + *r - maskedBy(ctx_, *r, *lc);
    break;
  case BinaryOp::BitXor:
    if (boolOperands) return *l != *r;
    if (rc) return *l + *r - 2 * maskedBy(ctx_, *l, *rc);
    if (lc) return *l + *r - 2 * maskedBy(ctx_, *r, *lc);
    break;
  }
  // A shift by a non-constant amount: a case split over the amounts 0..31 (multiplication / floor division
  // by a constant each, which the solver decides far more easily than bit-vectors), bit-vectors beyond -
  // only over the amounts the operand's range allows, and no bit-vectors when that range is inside 0..31.
  std::optional<z3::expr> shiftCases;
  std::optional<IntRange> amounts = rangeOf(*r);
  const bool amountsInWord = amounts && amounts->lo >= 0 && amounts->hi <= 31;
  if ((b.op == BinaryOp::Shl || b.op == BinaryOp::Shr) && !rc && !boolOperands) {
    const int highest = amountsInWord ? int(amounts->hi) : 31, lowest = amountsInWord ? int(amounts->lo) : 0;
    for (int k = highest; k >= lowest; --k) {
      z3::expr p = ctx_.int_val(int64_t(1) << k);
      z3::expr v = b.op == BinaryOp::Shl ? *l * p : *l / p;   // Int `/` is floor for p > 0: arithmetic shift
      if (b.op == BinaryOp::Shr && isUnsigned) v = *l / p;
      shiftCases = shiftCases ? z3::ite(*r == k, v, *shiftCases) : v;
    }
  }
  if (shiftCases && amountsInWord) return *shiftCases;   // the innermost else is the lowest amount
  // General bit operations: through 64-bit two's-complement bit-vectors.
  z3::expr lb = z3::int2bv(64, *l), rb = z3::int2bv(64, *r);
  z3::expr res = lb;
  switch (b.op) {
  case BinaryOp::BitAnd: res = lb & rb; break;
  case BinaryOp::BitOr: res = lb | rb; break;
  case BinaryOp::BitXor: res = lb ^ rb; break;
  case BinaryOp::Shl: res = z3::shl(lb, rb); break;
  case BinaryOp::Shr: res = isUnsigned ? z3::lshr(lb, rb) : z3::ashr(lb, rb); break;
  default: return fail("unsupported operator");
  }
  // bv2int is unsigned; reinterpret as signed.
  z3::expr asUnsigned = z3::bv2int(res, false);
  z3::expr general = z3::ite(asUnsigned >= ctx_.int_val("9223372036854775808"),
                             asUnsigned - ctx_.int_val("18446744073709551616"), asUnsigned);
  if (shiftCases) {
    // shiftCases holds the k = 0 case as its innermost else; amounts outside 0..31 take the bit-vectors.
    return z3::ite(*r >= 0 && *r <= 31, *shiftCases, general);
  }
  return general;
}

z3::expr ExprToZ3::launchReadOrFresh(const Expr &node, const char *name, bool fixed, int64_t lo,
                                     std::optional<int64_t> hiExclusive) {
  if (fixed)
    if (auto it = launchReadOf_.find(&node); it != launchReadOf_.end()) return it->second;
  z3::expr v = newVar(name, lo, hiExclusive);
  if (fixed) {
    launchReads_.push_back({&node, v});
    launchReadOf_.emplace(&node, v);
  }
  return v;
}

z3::expr ExprToZ3::maskedValue(const BinaryExpr &b, int64_t lo, std::optional<int64_t> hiExclusive,
                               const std::optional<z3::expr> &bound) {
  const bool fixed = launchInvariant(*b.lhs, 0) && (!bound || launchInvariant(*b.rhs, 0));
  const size_t conditionsBefore = sideConditions_.size();
  z3::expr v = launchReadOrFresh(b, "masked", fixed, lo, hiExclusive);
  if (bound && sideConditions_.size() > conditionsBefore) sideConditions_.push_back(z3::implies(*bound > 0, v < *bound));
  return v;
}

z3::expr ExprToZ3::clampedValue(const CallExpr &c, const z3::expr &known, bool isMin) {
  const bool isUnsigned = isUnsignedType(c.type);
  const bool is64 = c.type && c.type->kind == TypeKind::Scalar && c.type->scalar == ScalarKind::I64;
  const int64_t lo = isUnsigned ? 0 : is64 ? -kRangeUnbounded : INT32_MIN;
  const std::optional<int64_t> hi = isUnsigned ? std::optional<int64_t>(int64_t(1) << 32)
                                    : is64     ? std::nullopt
                                               : std::optional<int64_t>(kI32Max + 1);
  const size_t conditionsBefore = sideConditions_.size();
  z3::expr v = launchReadOrFresh(c, "clamped", launchInvariant(c, 0), lo, hi);
  if (sideConditions_.size() > conditionsBefore) sideConditions_.push_back(isMin ? v <= known : v >= known);
  return v;
}

bool ExprToZ3::launchInvariant(const Expr &e, unsigned depth) {
  if (depth > kMaxExprDepth) return false;
  if (auto bv = builtinValueOf(e)) {
    switch (*bv) {
    case BuiltinValue::BlockX: case BuiltinValue::BlockY: case BuiltinValue::BlockZ:
      // The CTAs of a cluster are simulated with one set of values: their positions differ.
      return info_.clusterCtas() == 1;
    case BuiltinValue::GridDimX: case BuiltinValue::GridDimY: case BuiltinValue::GridDimZ:
    case BuiltinValue::BlockDimX: case BuiltinValue::BlockDimY: case BuiltinValue::BlockDimZ:
    case BuiltinValue::NumSms:
      return true;
    default: return false;
    }
  }
  switch (e.kind) {
  case ExprKind::IntLit: case ExprKind::BoolLit: return true;
  case ExprKind::Name: {
    const Decl *d = cast<NameExpr>(&e)->decl;
    if (!d) return false;
    switch (d->declKind) {
    case DeclKind::ShapeVar: case DeclKind::CtParam: return true;
    case DeclKind::Param: return d->type && d->type->isInteger();
    case DeclKind::Let: {
      if (auto it = launchInvariantLets_.find(d); it != launchInvariantLets_.end()) return it->second;
      launchInvariantLets_[d] = false;   // a cycle is not invariant
      const Expr *init = static_cast<const LetStmt *>(d)->init.get();
      const bool fixed = init && launchInvariant(*init, depth + 1);
      launchInvariantLets_[d] = fixed;
      return fixed;
    }
    default: return false;   // loop variables, mutable variables, thread builtins, roles
    }
  }
  case ExprKind::Unary: return launchInvariant(*cast<UnaryExpr>(&e)->operand, depth + 1);
  case ExprKind::Binary: {
    auto *b = cast<BinaryExpr>(&e);
    return launchInvariant(*b->lhs, depth + 1) && launchInvariant(*b->rhs, depth + 1);
  }
  case ExprKind::Call: {
    auto *c = cast<CallExpr>(&e);
    static const std::set<std::string> kPure = {"i32", "u32", "i64", "u64", "cdiv", "min", "max", "abs", "select"};
    if (!kPure.count(c->callee)) return false;
    for (const Ptr<Expr> &a : c->args)
      if (!a || !launchInvariant(*a, depth + 1)) return false;
    return true;
  }
  case ExprKind::Index: {
    // An element of a global tensor parameter the kernel never writes, at an index fixed for the launch.
    auto *ix = cast<IndexExpr>(&e);
    auto *base = dynCast<NameExpr>(ix->base.get());
    const Decl *d = base ? base->decl : nullptr;
    if (!d || d->declKind != DeclKind::Param || !d->type || !d->type->isTensor() || !info_.kernel ||
        !info_.kernel->body)
      return false;
    auto written = tensorWritten_.find(d);
    if (written == tensorWritten_.end())
      written = tensorWritten_.emplace(d, writesTensor(*info_.kernel->body, d)).first;
    if (written->second) return false;
    for (const IndexItem &it : ix->items)
      if (it.kind != IndexItem::Point || !it.start || !launchInvariant(*it.start, depth + 1)) return false;
    return true;
  }
  default: return false;
  }
}

std::optional<z3::expr> ExprToZ3::trCall(const CallExpr &c, TranslateFailure &f, unsigned depth) {
  auto fail = [&](std::string why) -> std::optional<z3::expr> {
    if (f.reason.empty()) {
      f.reason = std::move(why);
      f.culprit = &c;
    }
    return std::nullopt;
  };
  const std::string &n = c.callee;
  if ((n == "min" || n == "max") && c.args.size() == 2) {
    // min(x, b) <= b and max(x, b) >= b whatever x is: where one argument cannot be expressed (an index read
    // from memory, clamped), the call is a fresh constant on the known side of the other.
    TranslateFailure firstFailure, secondFailure;
    auto a = tr(*c.args[0], firstFailure, depth + 1);
    auto b = tr(*c.args[1], secondFailure, depth + 1);
    if (a && b) return n == "min" ? z3::ite(*a <= *b, *a, *b) : z3::ite(*a >= *b, *a, *b);
    if (a || b) return clampedValue(c, a ? *a : *b, n == "min");
    if (f.reason.empty()) f = firstFailure;
    return std::nullopt;
  }
  std::vector<z3::expr> args;
  for (const Ptr<Expr> &a : c.args) {
    auto v = tr(*a, f, depth + 1);
    if (!v) return std::nullopt;
    args.push_back(*v);
  }
  if ((n == "i32" || n == "u32" || n == "i64") && args.size() == 1) return args[0];
  if (n == "cdiv" && args.size() == 2) {   // a / b + (a % b > 0): codegen's rounded-up quotient (b > 0)
    // That is ceil(a / b) for every a when b > 0, which for a constant b is one floor division
    // ((a + b - 1) div b: SMT-LIB div is the floor for a positive divisor), far easier for the solver.
    if (auto b = constantOf(args[1]); b && *b > 0) return (args[0] + ctx_.int_val(*b - 1)) / ctx_.int_val(*b);
    bool u = isUnsignedType(c.type);
    return divide(args[0], args[1], u) + z3::ite(remainder(args[0], args[1], u) > 0, ctx_.int_val(1), ctx_.int_val(0));
  }
  if (n == "abs" && args.size() == 1) return z3::ite(args[0] >= 0, args[0], -args[0]);
  if (n == "select" && args.size() == 3 && args[0].is_bool()) return z3::ite(args[0], args[1], args[2]);
  return fail("call to '" + n + "' is not modelled by the verifier");
}

} // namespace cake
