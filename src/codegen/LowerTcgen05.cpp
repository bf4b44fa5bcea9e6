// Blackwell tensor memory and tcgen05 (sm_100a, cta_group::1; docs/blackwell.md).
//
//   tmem NAME: T[..][128, N]   a 4-byte shared slot (SharedArray::offset) that tcgen05.alloc fills with the
//                              allocation's base address (lane 0, first column); every use loads it back:
//                              ld.shared.u32 base, [slot].  A tile's address is base + its first column
//                              (bits 0-15: column, bits 16-31: lane; PTX ISA "Tensor Memory Addressing").
//   tcgen05.alloc NAME         tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], columns
//   tcgen05.dealloc NAME       tcgen05.dealloc.cta_group::1.sync.aligned.b32 base, columns
//   tcgen05.relinquish         tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned
//   tcgen05.mma D += A * B [accumulate(P)]
//     for kk in 0 .. K/16:     tcgen05.mma.cta_group::1.kind::f16 [d], descA_kk | [a_kk], descB_kk, idesc, p_kk
//                              p_0 = P (default true: D = A*B + D; false: D = A*B), p_kk = true for kk > 0.
//     Instruction descriptor (32 bits, PTX ISA "Instruction descriptor" for .kind::f16): bits 4-5 D format
//     (1 = f32), 7-9 A format and 10-12 B format (0 = f16, 1 = bf16), 15 / 16 A / B major (0 = K-major),
//     17-22 N >> 3, 24-28 M >> 4; everything else 0 (dense, no negation, no saturation, no shift).
//     Shared-memory descriptor (64 bits, PTX ISA "Shared memory descriptor" of tcgen05): the wgmma fields -
//     bits 0-13 start >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4, 49-51 base offset - plus bits 46-47 = 1 (the
//     SM100 descriptor version) and the layout type in bits 61-63 (2 = 128B, 4 = 64B, 6 = 32B swizzle),
//     which for these modes is the same bit pattern as wgmma's bits 62-63 (1, 2, 3).  The K-major plans and
//     the k-step offsets are SharedLayout.cpp's (as for wgmma).  A 16-bit A in tensor memory holds two
//     elements per column: step kk starts 8 columns further.
//   tcgen05.commit M[s]        tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [M + 8s]
//   tcgen05.ld F <- T[:, c +: n]   tcgen05.ld.sync.aligned.32x32b.xn.b32 {F}, [base + col + (32 (warp % 4) << 16)]
//   tcgen05.st T[:, c +: n] <- F   tcgen05.st.sync.aligned.32x32b.xn.b32 [..], {F}
//     (a warp reaches only its 32-lane sub-partition: warp w % 4 of a warpgroup lanes 32 (w % 4) ..; PTX ISA
//     "Access restrictions" of tcgen05.ld / st)
//   tcgen05.wait.ld / .wait.st     tcgen05.wait::ld.sync.aligned / tcgen05.wait::st.sync.aligned
//   tcgen05.fence.before / .after  tcgen05.fence::before_thread_sync / tcgen05.fence::after_thread_sync
//   store T[r0, c0] <- [bf16|f16|f32](F)   F a tmem_acc: thread t stores row r0 + t, columns c0 .. c0+n-1, a
//     pair of columns per store, masked by a global tensor's last two dims (AccumulatorLayout.cpp).
#include "codegen/KernelLowering.h"

#include "frontend/Ops.h"
#include "frontend/SharedLayout.h"

namespace cake::codegen {

namespace {
constexpr const char *kCtaGroup = "cta_group::1";
} // namespace

const SharedArray *KernelLowering::tmemArrayOf(const Expr &e) {
  const Expr *cur = &e;
  while (const auto *ix = dynCast<IndexExpr>(cur)) cur = ix->base.get();
  const auto *n = dynCast<NameExpr>(cur);
  auto it = n && n->decl ? env_.find(n->decl) : env_.end();
  const SharedArray *arr = it != env_.end() ? std::get_if<SharedArray>(&it->second) : nullptr;
  return arr && arr->tmemColumns ? arr : nullptr;
}

std::string KernelLowering::tmemBase(const SharedArray &arr) {
  std::string r = out_.newReg(RegClass::B32);
  out_.inst("ld.shared.u32 " + r + ", " + Address{smemBase(), arr.offset}.str());
  return r;
}

// A tile of a tmem array: points on the outer dims, `:` or `0 +: 128` on the lanes, a point, slice or `:` on
// the columns.  Its first column (in 32-bit columns) is linear in the indices.
std::optional<TmemTile> KernelLowering::resolveTmemTile(const Expr &e) {
  const SharedArray *arr = tmemArrayOf(e);
  if (!arr) return std::nullopt;
  std::vector<const IndexExpr *> chain;
  const Expr *cur = &e;
  while (const auto *ix = dynCast<IndexExpr>(cur)) {
    chain.push_back(ix);
    cur = ix->base.get();
  }
  std::vector<const IndexItem *> items;
  for (auto rit = chain.rbegin(); rit != chain.rend(); ++rit)
    for (const auto &item : (*rit)->items) items.push_back(&item);
  std::vector<int64_t> dims;
  for (const auto &g : arr->groups) dims.insert(dims.end(), g.begin(), g.end());
  if (dims.size() < 2 || items.size() > dims.size()) return std::nullopt;
  const size_t laneDim = dims.size() - 2, colDim = dims.size() - 1;
  // Element strides in a row of elements: outer dim k advances prod(outer dims after k) * N elements.
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t k = laneDim; k-- > 0;) strides[k] = (k + 1 == laneDim ? dims[colDim] : strides[k + 1] * dims[k + 1]);
  const SourceRange R = e.range;
  TmemTile tile;
  tile.array = arr;
  tile.rows = dims[laneDim];
  tile.cols = dims[colDim];
  Value col = Value::ofInt(Scalar::I32, 0);
  for (size_t k = 0; k < dims.size(); ++k) {
    const IndexItem *item = k < items.size() ? items[k] : nullptr;
    if (k == laneDim) {
      if (item && item->kind != IndexItem::Full) {
        auto start = item->start ? constIntExpr(*item->start) : std::nullopt;
        auto len = item->length ? constIntExpr(*item->length) : std::nullopt;
        if (item->kind != IndexItem::Slice || start != 0 || len != dims[laneDim]) {
          diags_.report(DiagKind::CodegenUnsupportedForm, item->range, "a tensor-memory tile of fewer than its 128 lanes");
          return std::nullopt;
        }
      }
      continue;
    }
    if (!item || item->kind == IndexItem::Full) continue;
    if (item->kind == IndexItem::Slice) {
      auto len = constIntExpr(*item->length);
      if (!len || *len < 1 || *len > dims[k]) {
        diags_.report(DiagKind::CodegenUnsupportedForm, item->range, "a tile slice whose length is not a constant within the dim");
        return std::nullopt;
      }
      if (k == colDim) tile.cols = *len;
      else {
        diags_.report(DiagKind::CodegenUnsupportedForm, item->range, "a slice of an outer dim of a tensor-memory array");
        return std::nullopt;
      }
    } else if (k == colDim) {
      tile.cols = 1;
    }
    Value term = binaryOp(BinaryOp::Mul, lowerExpr(*item->start), Value::ofInt(Scalar::I32, strides[k]), R);
    col = binaryOp(BinaryOp::Add, col, term, R);
  }
  // 16-bit elements: two per 32-bit column.
  if (scalarBits(arr->elem) == 16) col = binaryOp(BinaryOp::Shr, col, Value::ofInt(Scalar::I32, 1), R);
  tile.elem = arr->elem;
  std::string base = tmemBase(*arr);
  if (auto c = constInt(col); c && *c == 0) {
    tile.addr = base;
  } else {
    tile.addr = out_.newReg(RegClass::B32);
    out_.inst("add.s32 " + tile.addr + ", " + base + ", " + operand(col));
  }
  return tile;
}

void KernelLowering::lowerTcgen05(const OpStmt &s) {
  const std::string group = kCtaGroup;
  switch (s.op->id) {
  case OpId::Tcgen05Alloc: case OpId::Tcgen05Dealloc: {
    const SharedArray *arr = s.dsts.size() == 1 ? tmemArrayOf(*s.dsts[0]) : nullptr;
    if (!arr) {
      diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "a tcgen05.alloc / dealloc whose operand is not a tmem array");
      return;
    }
    const std::string cols = std::to_string(arr->tmemColumns);
    if (s.op->id == OpId::Tcgen05Alloc)
      out_.inst("tcgen05.alloc." + group + ".sync.aligned.shared::cta.b32 " + Address{smemBase(), arr->offset}.str() + ", " + cols);
    else
      out_.inst("tcgen05.dealloc." + group + ".sync.aligned.b32 " + tmemBase(*arr) + ", " + cols);
    return;
  }
  case OpId::Tcgen05Relinquish: out_.inst("tcgen05.relinquish_alloc_permit." + group + ".sync.aligned"); return;
  case OpId::Tcgen05WaitLd: out_.inst("tcgen05.wait::ld.sync.aligned"); return;
  case OpId::Tcgen05WaitSt: out_.inst("tcgen05.wait::st.sync.aligned"); return;
  case OpId::Tcgen05FenceBefore: out_.inst("tcgen05.fence::before_thread_sync"); return;
  case OpId::Tcgen05FenceAfter: out_.inst("tcgen05.fence::after_thread_sync"); return;
  case OpId::Tcgen05Commit: {
    auto a = s.dsts.size() == 1 ? mbarrierAddress(*s.dsts[0]) : std::nullopt;
    if (!a) {
      diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "a tcgen05.commit whose operand is not an mbarrier");
      return;
    }
    out_.inst("tcgen05.commit." + group + ".mbarrier::arrive::one.shared::cluster.b64 " + a->str());
    return;
  }
  case OpId::Tcgen05Mma: lowerTcgen05Mma(s); return;
  case OpId::Tcgen05Ld: case OpId::Tcgen05St: lowerTcgen05Copy(s); return;
  default: break;
  }
  diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "the operation '" + s.name + "'");
}

uint32_t tcgen05InstrDescriptorF16(Scalar ab, int64_t m, int64_t n) {
  const uint32_t fmt = ab == Scalar::BF16 ? 1u : 0u;
  return (1u << 4) | (fmt << 7) | (fmt << 10) | (static_cast<uint32_t>(n >> 3) << 17) | (static_cast<uint32_t>(m >> 4) << 24);
}

uint32_t tcgen05DescriptorHiWord(uint32_t wgmmaHiWord) { return wgmmaHiWord | (1u << 14); }

void KernelLowering::lowerTcgen05Mma(const OpStmt &s) {
  const auto *mul = s.srcs.size() == 1 ? dynCast<BinaryExpr>(s.srcs[0].get()) : nullptr;
  if (s.dsts.size() != 1 || !mul || mul->op != BinaryOp::Mul) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "tcgen05.mma other than 'tcgen05.mma D += A * B'");
    return;
  }
  auto d = resolveTmemTile(*s.dsts[0]);
  auto b = resolveSharedTile(*mul->rhs);
  if (!d || !b || b->dims.size() != 2 || !b->transposed) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "a tcgen05.mma whose D is not a tmem tile or whose B is not a shared tile read .T");
    return;
  }
  const int64_t kInst = 16, m = d->rows, n = d->cols, kTotal = b->dims[1];
  const Scalar ab = b->array->elem;
  // A: a shared K-major tile, else a tmem tile.
  std::optional<SharedTile> aShared = resolveSharedTile(*mul->lhs);
  std::optional<TmemTile> aTmem;
  if (!aShared) aTmem = resolveTmemTile(*mul->lhs);
  if (!aShared && !aTmem) {
    diags_.report(DiagKind::CodegenUnsupportedForm, mul->lhs->range, "a tcgen05.mma A that is neither a shared nor a tmem tile");
    return;
  }
  struct Desc {
    std::string lo, hi;
    WgmmaDescriptorPlan plan;
  };
  auto makeDesc = [&](const SharedTile &t, SourceRange where) -> std::optional<Desc> {
    if (!t.colPhase && t.layout.blocked()) {
      diags_.report(DiagKind::WgmmaOperandLayout, where, "a tile of a column-blocked array whose first column is not known");
      return std::nullopt;
    }
    DescriptorResult r = planWgmmaDescriptor(t.layout, /*mnMajor=*/false, t.dims[0], t.dims[1], t.colPhase.value_or(0), kInst);
    if (!r.plan) {
      diags_.report(DiagKind::WgmmaOperandLayout, where, r.why + " (tcgen05.mma shared operand, swizzle " + std::to_string(t.array->swizzleBytes) + "B)")
          .hint("declare the tile with swizzle(128B) and rows a multiple of 128 bytes (the layout TMA writes)");
      return std::nullopt;
    }
    Desc dd;
    dd.plan = *r.plan;
    std::string addr = tileAddress(t), sh = out_.newReg(RegClass::B32), field = out_.newReg(RegClass::B32);
    dd.lo = out_.newReg(RegClass::B32);
    dd.hi = out_.newReg(RegClass::B32);
    out_.inst("shr.u32 " + sh + ", " + addr + ", 4");
    out_.inst("and.b32 " + field + ", " + sh + ", 16383");
    out_.inst("or.b32 " + dd.lo + ", " + field + ", " + std::to_string(dd.plan.lboField << 16));
    out_.inst("mov.b32 " + dd.hi + ", " + std::to_string(tcgen05DescriptorHiWord(dd.plan.hiWord())));
    return dd;
  };
  auto descB = makeDesc(*b, mul->rhs->range);
  if (!descB) return;
  std::optional<Desc> descA;
  if (aShared) {
    descA = makeDesc(*aShared, mul->lhs->range);
    if (!descA) return;
  }
  auto stepDesc = [&](const Desc &dd, int64_t kk) {
    std::string lo = dd.lo;
    if (const int64_t step = dd.plan.stepBytes[static_cast<size_t>(kk)]) {
      lo = out_.newReg(RegClass::B32);
      out_.inst("add.s32 " + lo + ", " + dd.lo + ", " + std::to_string(step / 16));
    }
    std::string r = out_.newReg(RegClass::B64);
    out_.inst("mov.b64 " + r + ", {" + lo + ", " + dd.hi + "}");
    return r;
  };
  // accumulate(P): the first instruction's enable-input-d; the later k-steps always accumulate.
  std::string first;
  for (const Clause &c : s.clauses)
    if (c.name == "accumulate" && c.args.size() == 1) first = reg(lowerExpr(*c.args[0]));
  if (first.empty()) {
    first = out_.newReg(RegClass::Pred);
    out_.inst("setp.ne.b32 " + first + ", 1, 0");
  }
  std::string always = out_.newReg(RegClass::Pred);
  out_.inst("setp.ne.b32 " + always + ", 1, 0");
  const std::string idesc = std::to_string(tcgen05InstrDescriptorF16(ab, m, n));
  for (int64_t kk = 0; kk < kTotal / kInst; ++kk) {
    std::string db = stepDesc(*descB, kk), aop;
    if (descA) {
      aop = stepDesc(*descA, kk);
    } else {
      aop = aTmem->addr;
      if (kk) {   // 16 16-bit elements = 8 columns per k-step
        aop = out_.newReg(RegClass::B32);
        out_.inst("add.s32 " + aop + ", " + aTmem->addr + ", " + std::to_string(8 * kk));
      }
      aop = "[" + aop + "]";
    }
    out_.inst("tcgen05.mma." + std::string(kCtaGroup) + ".kind::f16 [" + d->addr + "], " + aop + ", " + db + ", " + idesc + ", " +
              (kk == 0 ? first : always));
  }
}

void KernelLowering::lowerTcgen05Copy(const OpStmt &s) {
  const bool load = s.op->id == OpId::Tcgen05Ld;
  if (s.dsts.size() != 1 || s.srcs.size() != 1) return;
  const Expr &fragExpr = load ? *s.dsts[0] : *s.srcs[0];
  const Expr &tileExpr = load ? *s.srcs[0] : *s.dsts[0];
  auto tile = resolveTmemTile(tileExpr);
  if (!tile) {
    diags_.report(DiagKind::CodegenUnsupportedForm, tileExpr.range, "a tcgen05.ld / st operand that is not a tmem tile");
    return;
  }
  std::vector<std::string> regs;
  std::optional<LValue> lv;
  if (load) {
    lv = resolveLValue(fragExpr);
    if (!lv) return;
    if (lv->kind != LValue::Regs || !lv->target->type.isFrag() || lv->target->type.frag.kind != FragKind::TmemAcc) {
      diags_.report(DiagKind::CodegenUnsupportedForm, fragExpr.range, "a tcgen05.ld destination that is not a tmem_acc fragment");
      return;
    }
    regs = lv->target->regs;
  } else {
    Value v = lowerExpr(fragExpr);
    if (!v.type.isFrag() || v.type.frag.kind != FragKind::TmemAcc) {
      diags_.report(DiagKind::CodegenUnsupportedForm, fragExpr.range, "a tcgen05.st source that is not a tmem_acc fragment");
      return;
    }
    regs = v.regs;
  }
  if (static_cast<int64_t>(regs.size()) != tile->cols) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "a tcgen05.ld / st whose fragment and tile widths differ");
    return;
  }
  // The warp's sub-partition: lanes 32 (warp % 4) .. +31, in the address's bits 16-31.
  const SourceRange R = s.range;
  Value lane = binaryOp(BinaryOp::Shl, binaryOp(BinaryOp::BitAnd, *warpId_, Value::ofInt(Scalar::I32, 3), R),
                        Value::ofInt(Scalar::I32, 21), R);
  std::string addr = out_.newReg(RegClass::B32);
  out_.inst("add.s32 " + addr + ", " + tile->addr + ", " + operand(lane));
  // The fragment's own registers are the operands (ptxas takes .f32 registers in the .b32 vector): nothing
  // touches them between the ld and the program's tcgen05.wait.ld.
  std::string list = "{";
  for (size_t i = 0; i < regs.size(); ++i) list += (i ? ", " : "") + regs[i];
  list += "}";
  const std::string shape = "32x32b.x" + std::to_string(regs.size());
  if (load) {
    out_.inst("tcgen05.ld.sync.aligned." + shape + ".b32 " + list + ", [" + addr + "]");
  } else {
    out_.inst("tcgen05.st.sync.aligned." + shape + ".b32 [" + addr + "], " + list);
  }
}

void KernelLowering::lowerTmemFragmentStore(const OpStmt &s) {
  auto [fragExpr, outType] = splitStoreConversion(*s.srcs[0]);
  Value frag = lowerExpr(*fragExpr);
  const FragShape f = frag.type.frag;
  if (f.kind != FragKind::TmemAcc || scalarBits(f.dtype) != 32) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.srcs[0]->range, "a store of this tmem_acc fragment (only 32-bit elements)");
    return;
  }
  const Scalar to = outType.value_or(f.dtype);
  auto target = lowerFragmentStoreTarget(s);
  if (!target || !storedElementMatches(*target, to, s.range)) return;
  auto layout = accumulatorLayout(f, s.range);
  if (!layout) return;
  const ValueType vt = ValueType::vector(to, 2);
  forEachAccumulatorPair(*target, *layout, /*maskGlobal=*/true, s.range, s.dsts[0]->range,
                         [&](size_t p, const MemRef &m, const std::string &mask) {
                           Value pair = packVector(ValueType::vector(f.dtype, 2),
                                                   {Value::ofRegs(ValueType::scalar(f.dtype), {frag.regs[2 * p]}),
                                                    Value::ofRegs(ValueType::scalar(f.dtype), {frag.regs[2 * p + 1]})});
                           Value v = convert(pair, vt, s.range);
                           if (mask.empty()) {
                             store(m, v);
                             return;
                           }
                           if (scalarBits(to) == 32)
                             out_.instGuarded(mask, std::string("st.global.v2.") + (to == Scalar::F32 ? "f32 " : "b32 ") +
                                                        m.addr.str() + ", {" + v.regs[0] + ", " + v.regs[1] + "}");
                           else
                             out_.instGuarded(mask, "st.global.b32 " + m.addr.str() + ", " + v.regs[0]);
                         });
}

} // namespace cake::codegen
