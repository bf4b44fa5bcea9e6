// ExpectTxFix: the byte count of a phase's copies as source text, for E0604's fix-it (see the header).
// A copy's destination `a[s]` (or `a`, `a[s][w]`) names a shared array; the bracket groups it indexes with
// points are peeled off the array's declared type, and what is left - all dims of the remaining groups - is
// the tile the copy fills.
#include "verify/ExpectTxFix.h"

#include "frontend/ASTPrinter.h"
#include "frontend/Ops.h"
#include "verify/SyncStatements.h"

#include <algorithm>
#include <map>

namespace cake {
namespace {

// A dim as a factor of a product: names and literals as they are, anything else in parentheses.
std::string factorText(const Expr &e) {
  std::string text = printExpr(e);
  return isa<NameExpr>(&e) || isa<IntLitExpr>(&e) ? text : "(" + text + ")";
}

// The declared tile of the copy destination `dst`, as "D1 * D2 * sizeof(T)".
std::optional<std::string> tileBytesText(const Expr &dst) {
  std::vector<const IndexExpr *> groups = sync_detail::indexChain(&dst);
  for (const IndexExpr *ix : groups)
    for (const IndexItem &item : ix->items)
      if (item.kind != IndexItem::Point) return std::nullopt;
  size_t indexed = groups.size();
  auto *name = dynCast<NameExpr>(groups.empty() ? &dst : groups.front()->base.get());
  if (!name || !name->decl || name->decl->declKind != DeclKind::Shared) return std::nullopt;
  const auto *shared = static_cast<const SharedStmt *>(name->decl);
  const TypeExpr *type = shared->declaredType.get();
  if (!type || type->isFrag() || indexed >= type->dimGroups.size()) return std::nullopt;
  std::string text;
  for (size_t g = indexed; g < type->dimGroups.size(); ++g)
    for (const Ptr<Expr> &dim : type->dimGroups[g]) {
      if (!dim) return std::nullopt;
      text += factorText(*dim) + " * ";
    }
  return text + "sizeof(" + type->baseName + ")";
}

} // namespace

std::optional<std::string> expectTxBytesText(std::vector<PhaseCopy> copies) {
  // One term per statement, in source order.
  std::map<const OpStmt *, int64_t> counts;
  for (const PhaseCopy &c : copies) counts[c.copy] += c.count;
  std::vector<std::pair<const OpStmt *, int64_t>> terms(counts.begin(), counts.end());
  std::sort(terms.begin(), terms.end(),
            [](const auto &a, const auto &b) { return a.first->range.begin.offset < b.first->range.begin.offset; });
  std::string text;
  for (const auto &[copy, count] : terms) {
    if (!copy || copy->dsts.empty() || !copy->dsts[0] || count <= 0) return std::nullopt;
    std::optional<std::string> tile = tileBytesText(*copy->dsts[0]);
    if (!tile) return std::nullopt;
    text += (text.empty() ? "" : " + ") + (count > 1 ? std::to_string(count) + " * " : std::string()) + *tile;
  }
  if (text.empty()) return std::nullopt;
  return text;
}

std::optional<SourceRange> expectTxArgRange(const OpStmt &s) {
  if (const Clause *c = sync_detail::findClause(s, "expect_tx"); c && c->args.size() == 1 && c->args[0]) return c->args[0]->range;
  if (s.op && s.op->id == OpId::MbarrierExpectTx && s.dsts.size() >= 2 && s.dsts[1]) return s.dsts[1]->range;
  return std::nullopt;
}

} // namespace cake
