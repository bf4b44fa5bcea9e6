// Binding --shape values to a kernel: shape variables, requires(...), grid(...).  See ShapeBinding.h.
#include "cost/ShapeBinding.h"

#include "cost/LaneValue.h"
#include "frontend/Builtins.h"

#include <unordered_map>
#include <set>

namespace cake::cost {

namespace {

using LetMemo = std::unordered_map<const Decl *, std::optional<int64_t>>;   // lets evaluated in one query
std::optional<int64_t> eval(const Expr &e, const ShapeBinding &b, unsigned depth, LetMemo &memo);


std::optional<int64_t> apply(IntOp op, int64_t a, int64_t b) {
  LaneValue r = applyIntOp(op, LaneValue::uniform(a), LaneValue::uniform(b));
  if (!r.known()) return std::nullopt;
  return r.scalar;
}

std::optional<int64_t> eval(const Expr &e, const ShapeBinding &b, unsigned depth, LetMemo &memo) {
  if (depth > 256) return std::nullopt;
  switch (e.kind) {
  case ExprKind::IntLit: return static_cast<int64_t>(cast<IntLitExpr>(&e)->value);
  case ExprKind::BoolLit: return cast<BoolLitExpr>(&e)->value ? 1 : 0;
  case ExprKind::Name: {
    auto *n = cast<NameExpr>(&e);
    if (!n->decl) return std::nullopt;
    switch (n->decl->declKind) {
    case DeclKind::CtParam: return static_cast<const CtParam *>(n->decl)->value;
    case DeclKind::ShapeVar: {
      auto it = b.values.find(n->decl);
      if (it == b.values.end()) return std::nullopt;
      return it->second;
    }
    case DeclKind::Let: {
      auto *let = static_cast<const LetStmt *>(n->decl);
      if (auto it = memo.find(let); it != memo.end()) return it->second;   // each let once: chains stay linear
      std::optional<int64_t> v = let->init ? eval(*let->init, b, depth + 1, memo) : std::nullopt;
      memo.emplace(let, v);
      return v;
    }
    case DeclKind::Builtin:
      if (builtinValueOf(e) == BuiltinValue::NumSms) return b.numSms;
      return std::nullopt;
    default: return std::nullopt;
    }
  }
  case ExprKind::Unary: {
    auto *u = cast<UnaryExpr>(&e);
    auto v = eval(*u->operand, b, depth + 1, memo);
    if (!v) return std::nullopt;
    if (u->op == UnaryOp::Neg) return apply(IntOp::Sub, 0, *v);
    if (u->op == UnaryOp::Not) return *v == 0 ? 1 : 0;
    return ~*v;
  }
  case ExprKind::Binary: {
    auto *bin = cast<BinaryExpr>(&e);
    auto l = eval(*bin->lhs, b, depth + 1, memo);
    auto r = eval(*bin->rhs, b, depth + 1, memo);
    auto op = intOpOf(bin->op);
    if (!l || !r || !op) return std::nullopt;
    return apply(*op, *l, *r);
  }
  case ExprKind::Call: {
    auto *c = cast<CallExpr>(&e);
    std::vector<int64_t> args;
    for (const auto &a : c->args) {
      auto v = eval(*a, b, depth + 1, memo);
      if (!v) return std::nullopt;
      args.push_back(*v);
    }
    if (c->callee == "cdiv" && args.size() == 2) {
      if (args[1] == 0) return std::nullopt;
      auto sum = apply(IntOp::Add, args[0], args[1] - 1);
      return sum ? apply(IntOp::Div, *sum, args[1]) : std::nullopt;
    }
    if (c->callee == "min" && args.size() == 2) return std::min(args[0], args[1]);
    if (c->callee == "max" && args.size() == 2) return std::max(args[0], args[1]);
    if (c->callee == "select" && args.size() == 3) return args[0] ? args[1] : args[2];
    if ((c->callee == "i32" || c->callee == "u32" || c->callee == "i64") && args.size() == 1) return args[0];
    return std::nullopt;
  }
  default: return std::nullopt;
  }
}

} // namespace

std::optional<int64_t> evaluateUniform(const Expr &e, const ShapeBinding &binding) {
  LetMemo memo;
  return eval(e, binding, 0, memo);
}

std::optional<ShapeBinding> bindShape(const Kernel &kernel, const KernelInfo &info,
                                      const std::map<std::string, int64_t> &shape, int64_t numSms,
                                      DiagnosticEngine &diags) {
  ShapeBinding b;
  b.numSms = numSms;
  bool ok = true;
  for (const auto &var : kernel.shapeVars) {
    auto it = shape.find(var->name);
    if (it != shape.end()) {
      b.values[var.get()] = it->second;
      b.byName[var->name] = it->second;
    }
  }
  // A shape variable the kernel pins with requires(VAR == expr) follows from the others
  // (block_reduce_sum: G == cdiv(N, ...)).
  for (const Expr *req : info.requirements) {
    auto *eq = dynCast<BinaryExpr>(req);
    if (!eq || eq->op != BinaryOp::Eq) continue;
    for (auto [lhs, rhs] : {std::pair{eq->lhs.get(), eq->rhs.get()}, std::pair{eq->rhs.get(), eq->lhs.get()}}) {
      auto *name = dynCast<NameExpr>(lhs);
      if (!name || !name->decl || name->decl->declKind != DeclKind::ShapeVar || b.values.count(name->decl)) continue;
      if (std::optional<int64_t> v = evaluateUniform(*rhs, b)) {
        b.values[name->decl] = *v;
        b.byName[name->decl->name] = *v;
      }
    }
  }
  for (const auto &var : kernel.shapeVars) {
    auto it = shape.find(var->name);
    if (it == shape.end() && !b.values.count(var.get())) {
      std::string all;
      for (const auto &v : kernel.shapeVars) all += (all.empty() ? "" : ",") + v->name + "=...";
      diags.report(DiagKind::EstimateMissingShape, var->nameRange, var->name, kernel.name)
          .hint("give every shape variable a value: --shape " + all);
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  for (const Expr *req : info.requirements) {
    std::optional<int64_t> holds = evaluateUniform(*req, b);
    if (holds && *holds == 0) {
      diags.report(DiagKind::EstimateShapeViolatesRequirement, req->range, shapeToString(b.byName), kernel.name);
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  for (size_t d = 0; d < info.grid.size() && d < 3; ++d) {
    std::optional<int64_t> g = evaluateUniform(*info.grid[d], b);
    // The launch limits: 2^31 - 1 blocks along x, 65535 along y and z (so the block count fits in 64 bits).
    int64_t limit = d == 0 ? INT32_MAX : 65535;
    if (!g || *g < 1 || *g > limit) {
      diags.report(DiagKind::EstimateBadGrid, info.grid[d]->range, kernel.name,
                   g ? std::to_string(*g) : std::string("not computable from the shape"));
      return std::nullopt;
    }
    b.grid[d] = *g;
  }
  return b;
}

std::vector<std::string> unknownShapeNames(const std::vector<const Kernel *> &kernels,
                                           const std::map<std::string, int64_t> &shape) {
  std::set<std::string> known;
  for (const Kernel *k : kernels)
    for (const auto &v : k->shapeVars) known.insert(v->name);
  std::vector<std::string> out;
  for (const auto &[name, value] : shape)
    if (!known.count(name)) out.push_back(name);
  return out;
}

std::string shapeToString(const std::map<std::string, int64_t> &shape) {
  std::string out;
  for (const auto &[name, value] : shape) out += (out.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return out;
}

} // namespace cake::cost
