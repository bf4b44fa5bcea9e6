// Warp shuffles, warp reductions and votes.
//
//   shfl.xor(v, m)   shfl.sync.bfly.b32 d, v, m, 0x1f, 0xffffffff   (down/idx likewise; up uses c = 0)
//   warp.sum(v)      5-step butterfly: for d in 16 8 4 2 1: v = v + shfl.bfly(v, d); every lane ends with the
//                    warp's total (warp.max / warp.min use max / min).  Every lane of the warp must execute it
//                    (full member mask), as the language documents.
//   warp.any(p)      vote.sync.any.pred d, p, 0xffffffff (warp.all: .all): one instruction, d in every lane.
// 32-bit scalars shuffle directly; 16-bit x2 vectors shuffle their one packed register; 64-bit values
// and wider vectors shuffle each 32-bit half / register separately.
#include "codegen/KernelLowering.h"

namespace cake::codegen {

Value KernelLowering::shuffle(std::string_view mode, const Value &v0, const Value &laneArg, SourceRange where) {
  Value v = v0;
  if (v.isConst()) v = Value::ofRegs(ValueType::scalar(concreteScalar(v.type.elem)), {reg(v)});
  if (v.type.isFrag()) {
    diags_.report(DiagKind::CodegenUnsupportedForm, where, "a shuffle of a fragment");
    return placeholder(ValueType::scalar(Scalar::F32));
  }
  Scalar s = concreteScalar(v.type.elem);
  if (v.type.isScalar() && (scalarBits(s) == 16 || s == Scalar::Pred)) {
    diags_.report(DiagKind::CodegenUnsupportedForm, where, "a shuffle of a " + std::string(scalarName(s)) +
                                                          " scalar (pack two into an x2 vector, or convert to f32)");
    return placeholder(v.type);
  }
  std::string c = mode == "up" ? "0" : "31";
  std::string b = operand(adapt(laneArg, ValueType::scalar(Scalar::U32)));
  Value d = freshValue(v.type);
  for (size_t i = 0; i < v.regs.size(); ++i) {
    if (scalarBits(s) == 64) {
      std::string lo = out_.newReg(RegClass::B32), hi = out_.newReg(RegClass::B32);
      std::string lo2 = out_.newReg(RegClass::B32), hi2 = out_.newReg(RegClass::B32);
      out_.inst("mov.b64 {" + lo + ", " + hi + "}, " + v.regs[i]);
      out_.inst("shfl.sync." + std::string(mode) + ".b32 " + lo2 + ", " + lo + ", " + b + ", " + c + ", -1");
      out_.inst("shfl.sync." + std::string(mode) + ".b32 " + hi2 + ", " + hi + ", " + b + ", " + c + ", -1");
      out_.inst("mov.b64 " + d.regs[i] + ", {" + lo2 + ", " + hi2 + "}");
      continue;
    }
    out_.inst("shfl.sync." + std::string(mode) + ".b32 " + d.regs[i] + ", " + v.regs[i] + ", " + b + ", " + c + ", -1");
  }
  return d;
}

Value KernelLowering::warpReduce(BinaryOp op, std::string_view minMax, const Value &v0, SourceRange where) {
  Value v = v0;
  if (v.isConst()) v = Value::ofRegs(ValueType::scalar(concreteScalar(v.type.elem)), {reg(v)});
  if (!v.type.isScalar() || scalarBits(concreteScalar(v.type.elem)) != 32) {
    diags_.report(DiagKind::CodegenUnsupportedForm, where, "a warp reduction of " + typeName(v.type));
    return placeholder(v.type);
  }
  Scalar s = concreteScalar(v.type.elem);
  for (int dist = 16; dist >= 1; dist /= 2) {
    Value other = shuffle("bfly", v, Value::ofInt(Scalar::U32, dist), where);
    if (minMax.empty()) {
      v = binaryOp(op, v, other, where);
    } else {
      Value d = freshValue(ValueType::scalar(s));
      out_.inst(std::string(minMax) + "." + std::string(ptxArithType(s)) + " " + d.regs[0] + ", " + v.regs[0] + ", " +
                other.regs[0]);
      v = d;
    }
  }
  return v;
}

Value KernelLowering::warpVote(std::string_view mode, const Value &p) {
  Value d = freshValue(ValueType::scalar(Scalar::Pred));
  out_.inst("vote.sync." + std::string(mode) + ".pred " + d.regs[0] + ", " + reg(adapt(p, ValueType::scalar(Scalar::Pred))) +
            ", 0xffffffff");
  return d;
}

} // namespace cake::codegen
