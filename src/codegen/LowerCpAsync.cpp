// cp.async: asynchronous global -> shared copies of 4, 8 or 16 bytes, and their groups.
//
//   cp.async S[..+:n] <- G[..+:n]   cp.async.cg.shared.global [s], [g], 16   (16 bytes: bypass L1)
//                                   cp.async.ca.shared.global [s], [g], 4|8  (.cg only exists for 16)
//   cp.async S <- G valid(c)        zero-fill copy: the source size is a register, BYTES where c holds and 0
//                                   where it does not (PTX: the bytes past src-size are written as zeros and
//                                   nothing is read), and the source address is clamped to the tensor's base
//                                   where c fails, so no out-of-range address is ever formed for the copy:
//                                     selp.u32 %sz, BYTES, 0, %c;  selp.b64 %src, G, BASE, %c;
//                                     cp.async.cg.shared.global [s], [%src], BYTES, %sz;
//                                   A constant c folds: true is the plain copy, false zero-fills from BASE.
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
  requireAlignment(src->global, bytes);
  std::string opcode = bytes == 16 ? "cp.async.cg.shared.global " : "cp.async.ca.shared.global ";
  const Clause *valid = nullptr;
  for (const auto &c : s.clauses)
    if (c.name == "valid" && c.args.size() == 1 && c.args[0]) valid = &c;
  if (!valid) {
    out_.inst(opcode + dst->addr.str() + ", " + src->addr.str() + ", " + std::to_string(bytes));
    return;
  }
  CAKE_ASSERT(src->global != nullptr);   // a global source resolves to its tensor
  Value cond = toPred(lowerExpr(*valid->args[0]));
  if (cond.isConst()) {
    if (cond.constant->i) out_.inst(opcode + dst->addr.str() + ", " + src->addr.str() + ", " + std::to_string(bytes));
    else out_.inst(opcode + dst->addr.str() + ", [" + src->global->base + "], " + std::to_string(bytes) + ", 0");
    return;
  }
  std::string p = reg(cond);
  std::string size = out_.newReg(RegClass::B32);
  out_.inst("selp.u32 " + size + ", " + std::to_string(bytes) + ", 0, " + p);
  std::string from = src->addr.base;
  if (src->addr.offset != 0) {
    from = out_.newReg(RegClass::B64);
    out_.inst("add.s64 " + from + ", " + src->addr.base + ", " + std::to_string(src->addr.offset));
  }
  std::string clamped = out_.newReg(RegClass::B64);
  out_.inst("selp.b64 " + clamped + ", " + from + ", " + src->global->base + ", " + p);
  out_.inst(opcode + dst->addr.str() + ", [" + clamped + "], " + std::to_string(bytes) + ", " + size);
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
