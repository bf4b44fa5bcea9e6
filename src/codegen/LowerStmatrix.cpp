// stmatrix (sm_90+): 8x8 b16 matrices from registers to shared memory - the reverse of ldmatrix.
//
//   stmatrix S[row, col +: 8] <- F1, F2, ...
//     -> stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 [addr], {registers of F1, F2, ...}
//   The sources are values held as packed 16-bit pairs (a bf16/f16 fragment, `bf16(acc)` of an mma.sync
//   accumulator, a bf16x2/bf16x8 vector); their 32-bit registers in order are matrices 0..3, so the count
//   (1, 2 or 4) names x1/x2/x4.  As for ldmatrix, lane 8i + r supplies the address of row r of matrix i
//   (the destination expression is evaluated per lane; swizzled arrays get their XOR).  Register i of a
//   lane holds row lane/4, elements 2*(lane%4) and 2*(lane%4)+1 of matrix i (PTX ISA "stmatrix").
#include "codegen/KernelLowering.h"

namespace cake::codegen {

void KernelLowering::lowerStmatrix(const OpStmt &s, bool trans) {
  if (s.dsts.size() != 1 || s.srcs.empty()) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "stmatrix other than 'stmatrix S[row, col +: 8] <- F, ...'");
    return;
  }
  std::vector<std::string> regs;
  for (const auto &src : s.srcs) {
    // bf16(acc) / f16(acc) of an f32 accumulator fragment: convert element pairs (c0,c1), (c2,c3), ...
    // into packed registers, the low element in the low half (cvt.rn.bf16x2.f32 d, hi, lo).
    if (const auto *call = dynCast<CallExpr>(src.get()); call && call->args.size() == 1) {
      auto to = parseValueTypeName(call->callee);
      if (to && to->isScalar() && (to->elem == Scalar::BF16 || to->elem == Scalar::F16)) {
        Value f = lowerExpr(*call->args[0]);
        if (f.type.isFrag() && f.type.frag.dtype == Scalar::F32 && f.regs.size() % 2 == 0) {
          for (size_t i = 0; i < f.regs.size(); i += 2) {
            std::string packed = out_.newReg(RegClass::B32);
            out_.inst(std::string("cvt.rn.") + (to->elem == Scalar::BF16 ? "bf16x2" : "f16x2") + ".f32 " + packed +
                      ", " + f.regs[i + 1] + ", " + f.regs[i]);
            regs.push_back(packed);
          }
          continue;
        }
      }
    }
    Value v = lowerExpr(*src);
    Scalar e = v.type.isFrag() ? v.type.frag.dtype : v.type.elem;
    // bf16(frag) of an f32 accumulator converts element-wise; pack its pairs.
    if (v.type.isFrag() && v.type.frag.kind == FragKind::MmaC && scalarBits(e) == 32) {
      diags_.report(DiagKind::CodegenUnsupportedForm, src->range, "stmatrix of 32-bit values (convert: bf16(acc))");
      return;
    }
    auto st = storageOf(v.type);
    if (v.isConst() || !st || st->cls != RegClass::B32 || scalarBits(e) != 16) {
      diags_.report(DiagKind::CodegenUnsupportedForm, src->range, "a stmatrix source that is not packed 16-bit data");
      return;
    }
    regs.insert(regs.end(), v.regs.begin(), v.regs.end());
  }
  if (regs.size() != 1 && regs.size() != 2 && regs.size() != 4) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range,
                  "stmatrix of " + std::to_string(regs.size()) + " registers (1, 2 or 4 8x8 matrices)");
    return;
  }
  auto dst = resolveMemRef(*s.dsts[0]);
  if (!dst) return;
  if (!dst->shared || scalarBits(dst->elem) != 16) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "a stmatrix destination that is not a 16-bit shared row");
    return;
  }
  std::string list = "{";
  for (size_t i = 0; i < regs.size(); ++i) list += (i ? ", " : "") + regs[i];
  list += "}";
  out_.inst("stmatrix.sync.aligned.m8n8.x" + std::to_string(regs.size()) + (trans ? ".trans" : "") + ".shared.b16 " +
            dst->addr.str() + ", " + list);
}

} // namespace cake::codegen
