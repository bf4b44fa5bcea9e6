// statementHoldingIn: descends from the kernel body through the statements whose source range holds both ranges
// (roles, loops, ifs, elects, blocks) and stops at the first one that holds `inner` but not `alsoIn`, noting
// whether it passed a role, an if or an elect on the way.
// statementHolding: descends through the statements that hold a range down to the innermost one of a block.
#include "verify/EnclosingStatement.h"

#include <vector>

namespace cake {

namespace {

bool holds(SourceRange outer, SourceRange r) {
  return outer.begin.file == r.begin.file && outer.begin.offset <= r.begin.offset && r.end <= outer.end;
}

std::vector<const Stmt *> childrenOf(const Stmt &s) {
  std::vector<const Stmt *> out;
  switch (s.kind) {
  case StmtKind::Block:
    for (const auto &c : cast<BlockStmt>(&s)->stmts) out.push_back(c.get());
    break;
  case StmtKind::Role: out.push_back(cast<RoleStmt>(&s)->body.get()); break;
  case StmtKind::For: out.push_back(cast<ForStmt>(&s)->body.get()); break;
  case StmtKind::Elect: out.push_back(cast<ElectStmt>(&s)->body.get()); break;
  case StmtKind::If:
    out.push_back(cast<IfStmt>(&s)->thenBody.get());
    out.push_back(cast<IfStmt>(&s)->elseBody.get());
    break;
  default: break;
  }
  return out;
}

// `s` holds both ranges: the statement of the innermost block below it that holds `inner` but not `alsoIn`.  A
// body that holds only `inner` (a then-branch whose else holds `alsoIn`) stands for its whole statement.
// *selective: set when the way down passes a role, an if or an elect.
const Stmt *holder(const Stmt &s, SourceRange inner, SourceRange alsoIn, bool *selective) {
  for (const Stmt *c : childrenOf(s)) {
    if (!c || !holds(c->range, inner)) continue;
    if (holds(c->range, alsoIn)) {
      if (selective && (s.kind == StmtKind::Role || s.kind == StmtKind::If || s.kind == StmtKind::Elect)) *selective = true;
      return holder(*c, inner, alsoIn, selective);
    }
    return s.kind == StmtKind::Block ? c : &s;
  }
  return nullptr;
}

// The innermost statement of a block below `s` that holds `r`; null when no child of `s` holds it.
const Stmt *innermostHolding(const Stmt &s, SourceRange r) {
  for (const Stmt *c : childrenOf(s)) {
    if (!c || !holds(c->range, r)) continue;
    if (const Stmt *deeper = innermostHolding(*c, r)) return deeper;
    return s.kind == StmtKind::Block ? c : nullptr;
  }
  return nullptr;
}

} // namespace

std::optional<SourceRange> statementHolding(const BlockStmt &body, SourceRange r) {
  if (!holds(body.range, r)) return std::nullopt;
  const Stmt *s = innermostHolding(body, r);
  return s ? std::optional<SourceRange>(s->range) : std::nullopt;
}

std::optional<SourceRange> statementHoldingIn(const BlockStmt &body, SourceRange inner, SourceRange alsoIn,
                                              bool *selective) {
  if (selective) *selective = false;
  if (!holds(body.range, inner) || !holds(body.range, alsoIn)) return std::nullopt;
  const Stmt *s = holder(body, inner, alsoIn, selective);
  return s ? std::optional<SourceRange>(s->range) : std::nullopt;
}

} // namespace cake
