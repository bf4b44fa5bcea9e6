// ldmatrix: 8x8 b16 matrices from shared memory into mma fragments.
//
//   ldmatrix F1, F2, ... <- S[row, col +: 8]
//     -> ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 {regs of F1, F2, ...}, [addr]
//   The matrix count is the number of 32-bit registers of the destination fragments (1, 2 or 4): an
//   m16n8k16 A fragment is 4 registers (x4), a B fragment 2 (two B fragments = x4).  Each lane supplies the
//   address of one 8-element row (lanes 0-7 matrix 0, 8-15 matrix 1, ...), which the source expression
//   computes per lane; swizzled shared arrays get the same XOR as every other access to them.
#include "codegen/KernelLowering.h"

namespace cake::codegen {

void KernelLowering::lowerLdmatrix(const OpStmt &s, bool trans) {
  if (s.srcs.size() != 1 || s.dsts.empty()) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "ldmatrix without destinations or with several sources");
    return;
  }
  std::vector<std::string> regs;
  for (const auto &d : s.dsts) {
    auto lv = resolveLValue(*d);
    if (!lv) return;
    if (lv->kind != LValue::Regs || !lv->target->type.isFrag()) {
      diags_.report(DiagKind::CodegenUnsupportedForm, d->range, "an ldmatrix destination that is not a fragment variable");
      return;
    }
    auto st = storageOf(lv->target->type);
    if (!st || st->cls != RegClass::B32 || scalarBits(lv->target->type.frag.dtype) != 16) {
      diags_.report(DiagKind::CodegenUnsupportedForm, d->range, "ldmatrix into a fragment of 32-bit elements");
      return;
    }
    regs.insert(regs.end(), lv->target->regs.begin(), lv->target->regs.end());
  }
  if (regs.size() != 1 && regs.size() != 2 && regs.size() != 4) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range,
                  "ldmatrix into " + std::to_string(regs.size()) + " registers (1, 2 or 4 8x8 matrices)");
    return;
  }
  auto src = resolveMemRef(*s.srcs[0]);
  if (!src) return;
  if (!src->shared || scalarBits(src->elem) != 16) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.srcs[0]->range, "an ldmatrix source that is not a 16-bit shared row");
    return;
  }
  std::string list = "{";
  for (size_t i = 0; i < regs.size(); ++i) list += (i ? ", " : "") + regs[i];
  list += "}";
  out_.inst("ldmatrix.sync.aligned.m8n8.x" + std::to_string(regs.size()) + (trans ? ".trans" : "") + ".shared.b16 " +
            list + ", " + src->addr.str());
}

} // namespace cake::codegen
