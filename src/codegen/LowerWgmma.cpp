// wgmma (sm_90a): warpgroup matrix multiply-accumulate from shared-memory descriptors, its group
// operations, and the store of a wgmma accumulator at its lane layout (docs/hopper.md "wgmma").
//
//   wgmma ACC += A * B      ACC: frag<wgmma_acc, f32|f16, 64, N, 16>; A: a shared [64, K] tile (K-major) or a
//                           frag<wgmma_a, ..>; B: a shared [N, K] tile read transposed (`b[s].T`, K-major)
//     for kk in 0 .. K/16:  wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 {ACC}, descA_kk, descB_kk, p, 1, 1, 0, 0
//                           (register A: {ACC}, {a0..a3}, descB_kk, p, 1, 1, 0); p = true (D = A*B + D)
//   Shared-memory matrix descriptor (64 bits, PTX ISA "Matrix Descriptor Format"):
//     bits  0-13  start address >> 4        bits 16-29  leading-dimension byte offset >> 4
//     bits 32-45  stride-dimension byte offset >> 4     bits 49-51 base offset (0: atoms 1024-aligned)
//     bits 62-63  swizzle: 0 none, 1 128B, 2 64B, 3 32B
//   A K-major tile whose rows are exactly one swizzle span (128/64/32 bytes) is the canonical swizzled
//   K-major layout: SBO = 8 rows * span (the distance between 8-row core-matrix groups), LBO unused for
//   swizzled K-major (encoded 1, as CUTLASS does), and step kk along K starts 32 bytes further (the
//   hardware applies the XOR swizzle to the computed addresses, so the unswizzled start is right).
//   wgmma.fence / wgmma.commit / wgmma.wait N -> wgmma.fence.sync.aligned / wgmma.commit_group.sync.aligned /
//   wgmma.wait_group.sync.aligned N.
//
//   store T[r0, c0] <- [bf16|f16|f32](ACC)     ACC a wgmma_acc 64 x N
//   store T[r0, c0] <- bf16(ACC)[:, c0 +: n]   columns c0 .. c0+n-1 only: the registers of their 8-column groups
//     Lane layout (PTX ISA "wgmma Register Fragment: Matrix D"): warp w = warp % 4 of the warpgroup owns rows
//     16w .. 16w+15; with g = lane / 4, q = lane % 4, f32 registers d[4j], d[4j+1] hold row 16w+g, columns
//     8j+2q, 8j+2q+1 and d[4j+2], d[4j+3] row 16w+g+8, same columns (f16: d[2j], d[2j+1] packed pairs).
//     Each pair is one 4-byte (bf16/f16) or 8-byte (f32) store.  Stores into a global tensor are masked by
//     its dims (row < dim0, column < dim1), as TMA stores clip: a ragged edge tile is written correctly.
//     Into a shared tile with a 16-bit output and a column origin provably a multiple of 8: one
//     stmatrix.sync.aligned.m8n8.x4.shared.b16 per 16 columns (x2 for an odd last 8-column block); its
//     matrices are the packed pairs (d[4j], d[4j+1]) (rows +0), (d[4j+2], d[4j+3]) (rows +8) of column blocks
//     j and j+1, lane l addresses row 16 * (warp % 4) + l % 16, column 8 * (l / 16); the array's swizzle XOR
//     (bits [7,10) into [4,7)) is computed once per lane, since a swizzled row is exactly one span.
#include "codegen/KernelLowering.h"

#include "frontend/ConstEval.h"
#include "frontend/Ops.h"

#include <unordered_map>

namespace cake::codegen {

namespace {
using MultipleMemo = std::unordered_map<const Decl *, bool>;   // lets decided in one query (chains stay linear)
bool multipleOf(const Expr &e, int64_t k, unsigned depth, MultipleMemo &memo) {
  if (depth > 32) return false;
  if (auto c = ConstEvaluator().evaluate(e).optional()) return *c % k == 0;
  if (const auto *b = dynCast<BinaryExpr>(&e)) {
    switch (b->op) {
    case BinaryOp::Mul: return multipleOf(*b->lhs, k, depth + 1, memo) || multipleOf(*b->rhs, k, depth + 1, memo);
    case BinaryOp::Add: case BinaryOp::Sub:
      return multipleOf(*b->lhs, k, depth + 1, memo) && multipleOf(*b->rhs, k, depth + 1, memo);
    case BinaryOp::Shl: {
      auto sh = ConstEvaluator().evaluate(*b->rhs).optional();
      return (sh && *sh >= 0 && *sh < 62 && (int64_t{1} << *sh) % k == 0) || multipleOf(*b->lhs, k, depth + 1, memo);
    }
    default: return false;
    }
  }
  if (const auto *n = dynCast<NameExpr>(&e); n && n->decl && n->decl->declKind == DeclKind::Let) {
    const auto *let = static_cast<const LetStmt *>(n->decl);
    if (auto it = memo.find(let); it != memo.end()) return it->second;
    bool multiple = let->init && multipleOf(*let->init, k, depth + 1, memo);
    memo.emplace(let, multiple);
    return multiple;
  }
  return false;
}
} // namespace

// True when the integer expression is a multiple of k for every value of its names: literals and
// compile-time constants, products with a multiple, sums / differences of multiples, shifts by log2(k) or
// more, and `let` names bound to such expressions.
bool provablyMultipleOf(const Expr &e, int64_t k, unsigned depth) {
  MultipleMemo memo;
  return multipleOf(e, k, depth, memo);
}

bool KernelLowering::isWgmmaFragmentStore(const OpStmt &s) const {
  if (s.srcs.size() != 1) return false;
  const Type *t = s.srcs[0]->type;   // the (converted) source: any element-wise expression of a wgmma fragment
  return t && t->isFragment() && (t->frag == cake::FragKind::WgmmaAcc || t->frag == cake::FragKind::WgmmaA);
}

void KernelLowering::lowerWgmmaSync(const OpStmt &s) {
  switch (s.op->id) {
  case OpId::WgmmaFence: out_.inst("wgmma.fence.sync.aligned"); return;
  case OpId::WgmmaCommit: out_.inst("wgmma.commit_group.sync.aligned"); return;
  case OpId::WgmmaWait: {
    std::optional<int64_t> n;
    if (s.dsts.size() == 1) n = constIntExpr(*s.dsts[0]);
    if (!n || *n < 0 || *n > 7) {
      diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "wgmma.wait with a count that is not a constant in 0..7");
      return;
    }
    out_.inst("wgmma.wait_group.sync.aligned " + std::to_string(*n));
    return;
  }
  default: break;
  }
  diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "the operation '" + s.name + "'");
}

void KernelLowering::lowerWgmma(const OpStmt &s) {
  const auto *mul = s.srcs.size() == 1 ? dynCast<BinaryExpr>(s.srcs[0].get()) : nullptr;
  if (s.dsts.size() != 1 || !mul || mul->op != BinaryOp::Mul || s.arrow != OpArrow::Accumulate) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "wgmma other than 'wgmma ACC += A * B'");
    return;
  }
  auto acc = resolveLValue(*s.dsts[0]);
  if (!acc) return;
  if (acc->kind != LValue::Regs || acc->target->type.frag.kind != FragKind::WgmmaAcc) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "a wgmma accumulator that is not a wgmma_acc fragment");
    return;
  }
  const FragShape fc = acc->target->type.frag;
  if (fc.m != 64 || fc.n < 8 || fc.n > 256 || fc.n % 8 != 0 || (fc.dtype != Scalar::F32 && fc.dtype != Scalar::F16)) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "a wgmma accumulator of this shape or type");
    return;
  }
  // B: a shared [N, K] tile read transposed (K-major) or a shared [K, N] tile (MN-major).
  auto b = resolveSharedTile(*mul->rhs);
  if (!b || b->dims.size() != 2) {
    diags_.report(DiagKind::CodegenUnsupportedForm, mul->rhs->range, "a wgmma B operand that is not a two-dimensional shared tile");
    return;
  }
  const bool bMN = !b->transposed;
  const Scalar ab = b->array->elem;
  if (ab != Scalar::BF16 && ab != Scalar::F16) {
    diags_.report(DiagKind::CodegenUnsupportedForm, mul->rhs->range, "wgmma on operands other than bf16 / f16");
    return;
  }
  if (fc.dtype == Scalar::F16 && ab != Scalar::F16) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "an f16 wgmma accumulator with bf16 operands (use f32)");
    return;
  }
  const int64_t kInst = 16;   // K of one instruction for 16-bit inputs
  const int64_t n = bMN ? b->dims[1] : b->dims[0], kB = bMN ? b->dims[0] : b->dims[1];
  if (n != fc.n || kB % kInst != 0) {
    diags_.report(DiagKind::CodegenUnsupportedForm, mul->rhs->range,
                  "a wgmma B tile of K = " + std::to_string(kB) + ", N = " + std::to_string(n) + " for an accumulator with N = " +
                      std::to_string(fc.n) + " (needs N columns and K a multiple of 16)");
    return;
  }
  // A: a shared [64, K] tile (K-major), a shared [K, 64] tile read transposed (M-major), or a register fragment.
  std::optional<SharedTile> a;
  std::optional<Value> aRegs;
  bool aMN = false;
  if (auto t = resolveSharedTile(*mul->lhs)) {
    a = t;
    aMN = a->transposed;
    const int64_t mA = a->dims.size() == 2 ? a->dims[aMN ? 1 : 0] : 0, kA = a->dims.size() == 2 ? a->dims[aMN ? 0 : 1] : 0;
    if (mA != 64 || kA != kB || a->array->elem != ab) {
      diags_.report(DiagKind::CodegenUnsupportedForm, mul->lhs->range,
                    "a wgmma A tile that is not a [64, K] tile (or a [K, 64] tile read .T) of B's element type and K");
      return;
    }
  } else if (auto [accExpr, accTo] = splitStoreConversion(*mul->lhs);
             accTo && accExpr->type && accExpr->type->isFragment() && accExpr->type->frag == cake::FragKind::WgmmaAcc) {
    // A converted accumulator [64, K]: per k-step, registers 4kk .. 4kk+3 of the packed conversion.
    Value p = lowerExpr(*accExpr);
    if (*accTo != ab || p.type.frag.dtype != Scalar::F32 || p.type.frag.n != kB) {
      diags_.report(DiagKind::CodegenUnsupportedForm, mul->lhs->range,
                    "a wgmma A operand converted from an accumulator other than an f32 [64, K] one to B's type");
      return;
    }
    aRegs = Value::ofRegs(ValueType::vector(ab, static_cast<unsigned>(kB)), accumulatorAsOperand(p, ab, mul->lhs->range));
    // The conversion wrote the operand registers after the program's wgmma.fence: fence them again.
    out_.inst("wgmma.fence.sync.aligned");
  } else {
    Value v = lowerExpr(*mul->lhs);
    if (v.type.frag.kind != FragKind::WgmmaA || v.type.frag.dtype != ab || kB != kInst || v.regs.size() != 4) {
      diags_.report(DiagKind::CodegenUnsupportedForm, mul->lhs->range,
                    "a wgmma A operand that is neither a shared [64, K] tile nor a wgmma_a fragment of B's type with K = 16");
      return;
    }
    aRegs = v;
  }
  // Descriptors (SharedLayout.h): the constant high word (SBO, swizzle mode), the low word (start address
  // field | LBO field) for kk = 0, and the start offset of each k-step.
  struct Desc {
    std::string lo;
    std::string hi;
    WgmmaDescriptorPlan plan;
  };
  auto makeDesc = [&](const SharedTile &t, bool mnMajor, SourceRange where) -> std::optional<Desc> {
    const int64_t phase = t.colPhase.value_or(0);
    if (!t.colPhase && t.layout.blocked()) {
      diags_.report(DiagKind::WgmmaOperandLayout, where,
                    "a tile of a column-blocked array whose first column is not a constant or a multiple of " +
                        std::to_string(t.layout.blockCols()));
      return std::nullopt;
    }
    DescriptorResult r = planWgmmaDescriptor(t.layout, mnMajor, t.dims[0], t.dims[1], phase, kInst);
    if (!r.plan) {
      diags_.report(DiagKind::WgmmaOperandLayout, where,
                    r.why + " (array rows of " + std::to_string(t.layout.cols * t.layout.elemBytes) + " bytes, swizzle " +
                        std::to_string(t.array->swizzleBytes) + "B)")
          .hint("declare the tile with swizzle(128B) and rows a multiple of 128 bytes (the layout TMA writes)");
      return std::nullopt;
    }
    Desc d;
    d.plan = *r.plan;
    std::string addr = tileAddress(t), sh = out_.newReg(RegClass::B32), field = out_.newReg(RegClass::B32);
    d.lo = out_.newReg(RegClass::B32);
    d.hi = out_.newReg(RegClass::B32);
    out_.inst("shr.u32 " + sh + ", " + addr + ", 4");
    out_.inst("and.b32 " + field + ", " + sh + ", 16383");
    out_.inst("or.b32 " + d.lo + ", " + field + ", " + std::to_string(d.plan.lboField << 16));
    out_.inst("mov.b32 " + d.hi + ", " + std::to_string(d.plan.hiWord()));
    return d;
  };
  auto descB = makeDesc(*b, bMN, mul->rhs->range);
  if (!descB) return;
  std::optional<Desc> descA;
  if (a) {
    descA = makeDesc(*a, aMN, mul->lhs->range);
    if (!descA) return;
  }
  // scale-d = true: D = A * B + D.  A fresh predicate per statement, so no register is shared across branches.
  wgmmaScaleD_ = out_.newReg(RegClass::Pred);
  out_.inst("setp.ne.b32 " + wgmmaScaleD_ + ", 1, 0");
  std::string accList = "{";
  for (size_t i = 0; i < acc->target->regs.size(); ++i) accList += (i ? ", " : "") + acc->target->regs[i];
  accList += "}";
  const std::string ty(ptxArithType(ab)), dty(ptxArithType(fc.dtype));
  const std::string opcode = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(fc.n) + "k16." + dty + "." + ty + "." + ty;
  auto stepDesc = [&](const Desc &d, int64_t kk) {
    std::string lo = d.lo;
    if (const int64_t step = d.plan.stepBytes[static_cast<size_t>(kk)]) {   // the start-address field counts 16 bytes
      lo = out_.newReg(RegClass::B32);
      out_.inst("add.s32 " + lo + ", " + d.lo + ", " + std::to_string(step / 16));
    }
    std::string r = out_.newReg(RegClass::B64);
    out_.inst("mov.b64 " + r + ", {" + lo + ", " + d.hi + "}");
    return r;
  };
  // Immediates: scale-a, scale-b (1: no negation), then transpose-a (shared A only) and transpose-b: 1 = MN-major.
  const std::string tb = bMN ? "1" : "0";
  for (int64_t kk = 0; kk < kB / kInst; ++kk) {
    std::string db = stepDesc(*descB, kk);
    if (aRegs) {
      const size_t r0 = static_cast<size_t>(4 * kk);
      std::string al = "{" + aRegs->regs[r0] + ", " + aRegs->regs[r0 + 1] + ", " + aRegs->regs[r0 + 2] + ", " + aRegs->regs[r0 + 3] + "}";
      out_.inst(opcode + " " + accList + ", " + al + ", " + db + ", " + wgmmaScaleD_ + ", 1, 1, " + tb);
    } else {
      std::string da = stepDesc(*descA, kk);
      out_.inst(opcode + " " + accList + ", " + da + ", " + db + ", " + wgmmaScaleD_ + ", 1, 1, " + (aMN ? "1" : "0") + ", " + tb);
    }
  }
}

void KernelLowering::lowerWgmmaFragmentStore(const OpStmt &s) {
  // A column slice F[:, c0 +: n] (sema: n a multiple of 8) keeps the registers of column groups c0/8 ..
  // (c0+n)/8 - 1: 4 f32 (2 packed f16) registers per group of 8 columns.
  const Expr *src = s.srcs[0].get();
  std::optional<std::pair<int64_t, int64_t>> columns;
  if (const auto *ix = dynCast<IndexExpr>(src); ix && ix->base->type && ix->base->type->isFragment() && ix->items.size() == 2) {
    auto c0 = constIntExpr(*ix->items[1].start);
    auto n = ix->items[1].length ? constIntExpr(*ix->items[1].length) : std::nullopt;
    const int64_t fullN = ix->base->type->n;
    if (!c0 || !n || *c0 < 0 || *c0 % 8 != 0 || *n % 8 != 0 || *c0 + *n > fullN) {
      diags_.report(DiagKind::AccumulatorColumnSlice, ix->items[1].range,
                    "the columns are not a constant 8-column range inside N = " + std::to_string(fullN) + " after unrolling");
      return;
    }
    columns = {*c0, *n};
    src = ix->base.get();
  }
  auto [fragExpr, outType] = splitStoreConversion(*src);
  // An element-wise expression of an f32 accumulator is evaluated pair by pair as it is stored (like an
  // element-wise assignment), so the epilogue never holds a second fragment.
  std::optional<ElementwiseCache> lazy;
  Value frag;
  if (const Type *ft = fragExpr->type; !columns && !isa<NameExpr>(fragExpr) && ft && ft->isAccLayout() &&
                                       ft->frag == cake::FragKind::WgmmaAcc && ft->scalar == cake::ScalarKind::F32) {
    lazy.emplace();
    frag.type = ValueType::fragment(FragShape{FragKind::WgmmaAcc, Scalar::F32, static_cast<int>(ft->m), static_cast<int>(ft->n),
                                              static_cast<int>(ft->k)});
  } else {
    frag = lowerExpr(*fragExpr);
  }
  auto elementReg = [&](size_t e) -> std::string {
    return lazy ? reg(elementOf(*fragExpr, static_cast<unsigned>(e), frag.type, *lazy)) : frag.regs[e];
  };
  if (columns && frag.type.isFrag()) {
    const size_t perGroup = frag.type.frag.dtype == Scalar::F32 ? 4 : 2;
    const size_t first = static_cast<size_t>(columns->first / 8) * perGroup, count = static_cast<size_t>(columns->second / 8) * perGroup;
    if (first + count > frag.regs.size()) {
      diags_.report(DiagKind::CodegenUnsupportedForm, s.srcs[0]->range, "a column slice outside the accumulator's registers");
      return;
    }
    frag.regs = std::vector<std::string>(frag.regs.begin() + static_cast<std::ptrdiff_t>(first),
                                         frag.regs.begin() + static_cast<std::ptrdiff_t>(first + count));
    frag.type.frag.n = static_cast<int>(columns->second);
  }
  const FragShape f = frag.type.frag;
  if (f.kind != FragKind::WgmmaAcc || f.m != 64 || (f.dtype != Scalar::F32 && f.dtype != Scalar::F16)) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.srcs[0]->range, "a store of this wgmma fragment (only 64 x N accumulators)");
    return;
  }
  const Scalar to = outType.value_or(f.dtype);
  if (to != Scalar::F32 && to != Scalar::BF16 && to != Scalar::F16) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "storing a wgmma accumulator as " + std::string(scalarName(to)));
    return;
  }
  // The destination: T[..., r0, c0] with point indices.
  auto target = lowerFragmentStoreTarget(s);
  if (!target || !storedElementMatches(*target, to, s.range)) return;
  const Binding &dest = *target->tensor;
  const std::vector<Value> &idx = target->index;
  const GlobalTensor *global = std::get_if<GlobalTensor>(&dest);
  const SourceRange R = s.range;
  const int64_t colBlocks = f.n / 8;
  // The pair of elements (half h: rows +0 / +8, column block j) as registers of the output type.
  auto pairValue = [&](int h, int64_t j) -> std::vector<std::string> {
    if (f.dtype == Scalar::F32) {
      const std::string x0 = elementReg(static_cast<size_t>(4 * j + 2 * h)), x1 = elementReg(static_cast<size_t>(4 * j + 2 * h + 1));
      if (to == Scalar::F32) return {x0, x1};
      std::string packed = out_.newReg(RegClass::B32);
      out_.inst(std::string("cvt.rn.") + (to == Scalar::BF16 ? "bf16x2" : "f16x2") + ".f32 " + packed + ", " + x1 + ", " + x0);
      return {packed};
    }
    const std::string &p = frag.regs[static_cast<size_t>(2 * j + h)];   // f16 pair
    if (to == Scalar::F16) return {p};
    Value v = convert(Value::ofRegs(ValueType::vector(Scalar::F16, 2), {p}), ValueType::vector(to, 2), R);
    return v.regs;
  };
  if (!global) {
    const auto &arr = std::get<SharedArray>(dest);
    const auto *dstIndex = dynCast<IndexExpr>(s.dsts[0].get());
    std::vector<int64_t> dims;
    for (const auto &grp : arr.groups) dims.insert(dims.end(), grp.begin(), grp.end());
    const bool colAligned = dstIndex && !dstIndex->items.empty() && dstIndex->items.back().start &&
                            (constInt(idx.back()) ? *constInt(idx.back()) % 8 == 0
                                                  : provablyMultipleOf(*dstIndex->items.back().start, 8));
    // A column-blocked array (SharedLayout.h): a constant column origin that is a multiple of 16 keeps each
    // 16-column chunk inside one block; the chunk's block offset is then a constant.
    const ColumnBlocks blocks = columnBlocks(arr);
    const std::optional<int64_t> c0 = constInt(idx.back());
    const bool blockOk = !blocks.blocked() || (c0 && *c0 % 16 == 0 && blocks.blockCols() % 16 == 0 && dims.size() >= 2);
    if (scalarBits(to) == 16 && colAligned && blockOk && !dims.empty() && dims.back() % 8 == 0 && arr.offset % 16 == 0 &&
        dims.size() == idx.size()) {
      Value warpInGroup = binaryOp(BinaryOp::BitAnd, *warpId_, Value::ofInt(Scalar::I32, 3), R);
      // stmatrix.x4: matrices (rows +0, cols +0), (rows +8, cols +0), (rows +0, cols +8), (rows +8, cols +8) of a
      // 16 x 16 block; lane l gives the row address of row l % 8 of matrix l / 8: row 16 * (warp % 4) + l % 16,
      // column 8 * (l / 16).  The linear offset without constants is computed once per lane; each block adds
      // its constant column offset, then the array's swizzle XOR (bits [4,7) ^= bits [7,10)).
      Value lrow = binaryOp(BinaryOp::Add, binaryOp(BinaryOp::Shl, warpInGroup, Value::ofInt(Scalar::I32, 4), R),
                            binaryOp(BinaryOp::BitAnd, *laneId_, Value::ofInt(Scalar::I32, 15), R), R);
      Value lcol = binaryOp(BinaryOp::Shl, binaryOp(BinaryOp::Shr, *laneId_, Value::ofInt(Scalar::I32, 4), R),
                            Value::ofInt(Scalar::I32, 3), R);
      std::vector<Value> at = idx;
      at[at.size() - 2] = binaryOp(BinaryOp::Add, idx[idx.size() - 2], lrow, R);
      at.back() = blocks.blocked() ? lcol : binaryOp(BinaryOp::Add, idx.back(), lcol, R);
      std::vector<int64_t> strides(dims.size(), 2);
      for (size_t k = dims.size(); k-- > 1;) strides[k - 1] = strides[k] * dims[k];
      if (blocks.blocked()) strides[dims.size() - 2] = blocks.rowStride();
      std::string lin;   // .b32 register: the lane's non-constant linear byte offset
      int64_t constOff = 0;
      for (size_t k = 0; k < at.size(); ++k) accumulateSharedOffset(at[k], strides[k], lin, constOff, R);
      if (lin.empty()) {   // cannot happen (the lane terms are registers); keep the address well formed
        lin = out_.newReg(RegClass::B32);
        out_.inst("mov.b32 " + lin + ", 0");
      }
      const int64_t mask = arr.swizzleBytes == 128 ? 0x70 : arr.swizzleBytes == 64 ? 0x30 : arr.swizzleBytes == 32 ? 0x10 : 0;
      // A swizzled row is one span (or a column block one span wide, whose blocks start on swizzle-atom
      // boundaries), so an in-bounds chunk never leaves the lane's row: the XOR term (bits [7,10) of the offset)
      // is the same for every chunk of the lane.
      std::string xorTerm;
      if (mask) {
        std::string full = out_.newReg(RegClass::B32), sh = out_.newReg(RegClass::B32);
        xorTerm = out_.newReg(RegClass::B32);
        out_.inst("add.s32 " + full + ", " + lin + ", " + std::to_string(constOff));
        out_.inst("shr.u32 " + sh + ", " + full + ", 3");
        out_.inst("and.b32 " + xorTerm + ", " + sh + ", " + std::to_string(mask));
      }
      std::string unswizzledBase;
      if (!mask) {
        unswizzledBase = out_.newReg(RegClass::B32);
        out_.inst("add.s32 " + unswizzledBase + ", " + smemBase() + ", " + lin);
      }
      for (int64_t j = 0; j < colBlocks; j += 2) {
        const bool x4 = j + 1 < colBlocks;
        std::vector<std::string> regs;
        for (int64_t jb = j; jb < j + (x4 ? 2 : 1); ++jb)
          for (int h = 0; h < 2; ++h) regs.push_back(pairValue(h, jb)[0]);
        // 8 columns * 2 bytes per 8-column block; in a column-blocked array the chunk's block and column in it
        const int64_t blockOff = constOff + (blocks.blocked() ? blocks.offset(0, *c0 + 8 * j) : 16 * j);
        Address a;
        if (mask) {
          std::string full = out_.newReg(RegClass::B32), sw = out_.newReg(RegClass::B32), base = out_.newReg(RegClass::B32);
          out_.inst("add.s32 " + full + ", " + lin + ", " + std::to_string(blockOff));
          out_.inst("xor.b32 " + sw + ", " + full + ", " + xorTerm);
          out_.inst("add.s32 " + base + ", " + smemBase() + ", " + sw);
          a = {base, arr.offset};
        } else {
          a = {unswizzledBase, arr.offset + blockOff};
        }
        std::string list = "{";
        for (size_t i = 0; i < regs.size(); ++i) list += (i ? ", " : "") + regs[i];
        out_.inst(std::string("stmatrix.sync.aligned.m8n8.x") + (x4 ? "4" : "2") + ".shared.b16 " + a.str() + ", " + list + "}");
      }
      return;
    }
    // 32-bit outputs, or a column origin not provably 16-byte aligned: per-pair addresses (swizzle applies).
  }
  // Per-pair addresses from the accumulator layout (AccumulatorLayout.cpp); global pairs masked by the
  // tensor's last two dims.
  auto layout = accumulatorLayout(f, R);
  if (!layout) return;
  const ValueType vt = ValueType::vector(to, 2);
  forEachAccumulatorPair(*target, *layout, /*maskGlobal=*/true, R, s.dsts[0]->range,
                         [&](size_t p, const MemRef &m, const std::string &mask) {
                           std::vector<std::string> regs = pairValue(static_cast<int>(p % 2), static_cast<int64_t>(p / 2));
                           if (mask.empty()) {
                             store(m, Value::ofRegs(vt, to == Scalar::F32 ? regs : std::vector<std::string>{regs[0]}));
                             return;
                           }
                           if (to == Scalar::F32)
                             out_.instGuarded(mask, "st.global.v2.f32 " + m.addr.str() + ", {" + regs[0] + ", " + regs[1] + "}");
                           else
                             out_.instGuarded(mask, "st.global.b32 " + m.addr.str() + ", " + regs[0]);
                         });
}

} // namespace cake::codegen
