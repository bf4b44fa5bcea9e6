// cp.async: asynchronous global -> shared copies of 4, 8 or 16 bytes, and their groups.
//
//   cp.async S[..+:n] <- G[..+:n]   cp.async.cg.shared.global [s], [g], 16   (16 bytes: bypass L1)
//                                   cp.async.ca.shared.global [s], [g], 4|8  (.cg only exists for 16)
//   cp.async.commit                 cp.async.commit_group
//   cp.async.wait N                 cp.async.wait_group N     (N a compile-time constant)
#include "codegen/KernelLowering.h"

namespace cake::codegen {

void KernelLowering::lowerCpAsync(const OpStmt &s) {
  if (s.dsts.size() != 1 || s.srcs.size() != 1) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "cp.async with other than one destination and one source");
    return;
  }
  auto dst = resolveMemRef(*s.dsts[0]);
  auto src = resolveMemRef(*s.srcs[0]);
  if (!dst || !src) return;
  if (!dst->shared || src->shared) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "cp.async other than global -> shared");
    return;
  }
  int64_t bytes = static_cast<int64_t>(dst->lanes) * std::max(1u, scalarBits(dst->elem) / 8);
  int64_t srcBytes = static_cast<int64_t>(src->lanes) * std::max(1u, scalarBits(src->elem) / 8);
  if (bytes != srcBytes || (bytes != 4 && bytes != 8 && bytes != 16)) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range,
                  "cp.async of " + std::to_string(bytes) + " bytes (4, 8 or 16 bytes, equal on both sides)");
    return;
  }
  out_.inst(std::string(bytes == 16 ? "cp.async.cg.shared.global " : "cp.async.ca.shared.global ") + dst->addr.str() +
            ", " + src->addr.str() + ", " + std::to_string(bytes));
}

void KernelLowering::lowerCpAsyncCommit(const OpStmt &) { out_.inst("cp.async.commit_group"); }

void KernelLowering::lowerCpAsyncWait(const OpStmt &s) {
  const Expr *n = !s.dsts.empty() ? s.dsts[0].get() : (!s.srcs.empty() ? s.srcs[0].get() : nullptr);
  auto c = n ? constIntExpr(*n) : std::optional<int64_t>(0);
  if (!c || *c < 0 || *c > 63) {
    diags_.report(DiagKind::CodegenUnsupportedForm, n ? n->range : s.range,
                  "cp.async.wait with a count that is not a constant in 0..63");
    return;
  }
  out_.inst("cp.async.wait_group " + std::to_string(*c));
}

} // namespace cake::codegen
