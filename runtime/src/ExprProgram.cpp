// Flattening of an Expr tree into ExprProgram's node array and its evaluator, and the recognition of the
// common guard shape (a conjunction of comparisons of a name with a constant) evaluated as a flat loop.  The evaluator
// mirrors Expr::evaluate's checked arithmetic; on any failure it stops and the slow checked evaluator is run once to
// produce the same message the manifest's expressions give.
#include "ExprProgram.h"

#include "ExprTree.h"

#include <algorithm>
#include <limits>

namespace cake::rt {

namespace {

int32_t flatten(const ExprNode &node, const std::vector<std::string> &slots, std::vector<ExprProgram::Node> &out);

}   // namespace

ExprProgram ExprProgram::compile(const Expr &expr, const std::vector<std::string> &slots) {
  ExprProgram program;
  if (!expr.valid()) throw ExprSyntaxError("empty expression");
  for (const std::string &name : expr.names())
    if (std::find(slots.begin(), slots.end(), name) == slots.end())
      throw ExprSyntaxError("in `" + expr.text() + "`: unknown name '" + name + "'");
  program.root_ = flatten(*expr.root(), slots, program.nodes_);
  program.source_ = expr;
  program.slots_ = slots;
  program.compileAtoms();
  return program;
}

// Recognises a conjunction of atoms (see Atom) in the flattened tree; leaves simple_ false otherwise.
void ExprProgram::compileAtoms() {
  // A lone literal is a value (a workspace dim `2`), not a conjunction: only `1` evaluates to what the atom loop
  // gives it.  Inside a conjunction a non-zero literal is true (&& yields 0 or 1).
  if (const Node &root = nodes_[static_cast<size_t>(root_)]; static_cast<ExprOp>(root.op) == ExprOp::Literal &&
                                                             root.value != 1)
    return;
  std::vector<Atom> atoms;
  std::vector<int32_t> stack{root_};
  while (!stack.empty()) {
    const Node &n = nodes_[static_cast<size_t>(stack.back())];
    stack.pop_back();
    auto op = static_cast<ExprOp>(n.op);
    if (op == ExprOp::And) {
      stack.push_back(n.b);
      stack.push_back(n.a);
      continue;
    }
    if (op == ExprOp::Literal && n.value != 0) continue;   // `1`: always true
    if (n.a < 0 || n.b < 0) return;
    const Node &l = nodes_[static_cast<size_t>(n.a)], &r = nodes_[static_cast<size_t>(n.b)];
    auto kindOf = [](ExprOp o, bool swapped, Atom::Kind &k) {
      switch (o) {
      case ExprOp::Lt: k = swapped ? Atom::Gt : Atom::Lt; return true;
      case ExprOp::Le: k = swapped ? Atom::Ge : Atom::Le; return true;
      case ExprOp::Gt: k = swapped ? Atom::Lt : Atom::Gt; return true;
      case ExprOp::Ge: k = swapped ? Atom::Le : Atom::Ge; return true;
      case ExprOp::Eq: k = Atom::Eq; return true;
      case ExprOp::Ne: k = Atom::Ne; return true;
      default: return false;
      }
    };
    Atom atom{};
    auto lop = static_cast<ExprOp>(l.op), rop = static_cast<ExprOp>(r.op);
    if (lop == ExprOp::Name && rop == ExprOp::Literal && kindOf(op, false, atom.kind)) {
      atom.slot = static_cast<int32_t>(l.value);
      atom.value = r.value;
    } else if (lop == ExprOp::Literal && rop == ExprOp::Name && kindOf(op, true, atom.kind)) {
      atom.slot = static_cast<int32_t>(r.value);
      atom.value = l.value;
    } else if ((op == ExprOp::Eq || op == ExprOp::Ne) && lop == ExprOp::Rem && rop == ExprOp::Literal &&
               static_cast<ExprOp>(nodes_[static_cast<size_t>(l.a)].op) == ExprOp::Name &&
               static_cast<ExprOp>(nodes_[static_cast<size_t>(l.b)].op) == ExprOp::Literal &&
               nodes_[static_cast<size_t>(l.b)].value > 0) {
      atom.kind = op == ExprOp::Eq ? Atom::RemEq : Atom::RemNe;
      atom.slot = static_cast<int32_t>(nodes_[static_cast<size_t>(l.a)].value);
      atom.divisor = nodes_[static_cast<size_t>(l.b)].value;
      atom.value = r.value;
    } else {
      return;
    }
    atoms.push_back(atom);
  }
  atoms_ = std::move(atoms);
  simple_ = true;
}

namespace {

int32_t flatten(const ExprNode &node, const std::vector<std::string> &slots, std::vector<ExprProgram::Node> &out) {
  ExprProgram::Node n;
  n.op = static_cast<uint8_t>(node.op);
  if (node.op == ExprOp::Literal) n.value = node.value;
  if (node.op == ExprOp::Name) n.value = std::find(slots.begin(), slots.end(), node.name) - slots.begin();
  if (!node.operands.empty()) n.a = flatten(*node.operands[0], slots, out);
  if (node.operands.size() > 1) n.b = flatten(*node.operands[1], slots, out);
  out.push_back(n);
  return static_cast<int32_t>(out.size() - 1);
}

}   // namespace

bool ExprProgram::eval(int32_t index, const int64_t *values, int64_t &out) const {
  const Node &n = nodes_[static_cast<size_t>(index)];
  auto op = static_cast<ExprOp>(n.op);
  int64_t a = 0, b = 0;
  switch (op) {
  case ExprOp::Literal: out = n.value; return true;
  case ExprOp::Name: out = values[n.value]; return true;
  case ExprOp::And:
    if (!eval(n.a, values, a)) return false;
    if (a == 0) {
      out = 0;
      return true;
    }
    if (!eval(n.b, values, b)) return false;
    out = b != 0;
    return true;
  case ExprOp::Or:
    if (!eval(n.a, values, a)) return false;
    if (a != 0) {
      out = 1;
      return true;
    }
    if (!eval(n.b, values, b)) return false;
    out = b != 0;
    return true;
  case ExprOp::Neg:
    if (!eval(n.a, values, a) || a == std::numeric_limits<int64_t>::min()) return false;
    out = -a;
    return true;
  case ExprOp::Not:
    if (!eval(n.a, values, a)) return false;
    out = a == 0;
    return true;
  case ExprOp::BitNot:
    if (!eval(n.a, values, a)) return false;
    out = ~a;
    return true;
  default: break;
  }
  if (!eval(n.a, values, a) || !eval(n.b, values, b)) return false;
  switch (op) {
  case ExprOp::Add: return !__builtin_add_overflow(a, b, &out);
  case ExprOp::Sub: return !__builtin_sub_overflow(a, b, &out);
  case ExprOp::Mul: return !__builtin_mul_overflow(a, b, &out);
  case ExprOp::Div:
  case ExprOp::Rem:
  case ExprOp::Cdiv:
    if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) return false;
    if (op == ExprOp::Div)
      out = a / b;
    else if (op == ExprOp::Rem)
      out = a % b;
    else
      out = a / b + ((a % b != 0 && (a < 0) == (b < 0)) ? 1 : 0);
    return true;
  case ExprOp::Shl:
    if (b < 0 || b > 63 || a < 0 || (b > 0 && (a >> (63 - b)) != 0)) return false;
    out = a << b;
    return true;
  case ExprOp::Shr:
    if (b < 0 || b > 63) return false;
    out = a >> b;
    return true;
  case ExprOp::Lt: out = a < b; return true;
  case ExprOp::Le: out = a <= b; return true;
  case ExprOp::Gt: out = a > b; return true;
  case ExprOp::Ge: out = a >= b; return true;
  case ExprOp::Eq: out = a == b; return true;
  case ExprOp::Ne: out = a != b; return true;
  case ExprOp::BitAnd: out = a & b; return true;
  case ExprOp::BitXor: out = a ^ b; return true;
  case ExprOp::BitOr: out = a | b; return true;
  case ExprOp::Min: out = std::min(a, b); return true;
  case ExprOp::Max: out = std::max(a, b); return true;
  default: return false;
  }
}

bool ExprProgram::evaluateTree(const int64_t *values, int64_t &result, std::string *error) const {
  if (root_ >= 0 && eval(root_, values, result)) return true;
  if (error) {
    *error = "empty expression";
    if (source_.valid()) {
      try {
        result = source_.evaluate([&](std::string_view name) -> std::optional<int64_t> {
          for (size_t i = 0; i < slots_.size(); ++i)
            if (slots_[i] == name) return values[i];
          return std::nullopt;
        });
        *error = "in `" + source_.text() + "`: evaluation failed";   // the two evaluators disagree: a bug
      } catch (const ExprEvalError &e) {
        *error = e.what();
      }
    }
  }
  return false;
}

}   // namespace cake::rt
