// Global and shared memory: tensor parameters, address computation, vector loads and stores.
//
// Addresses are kept as (base register, constant byte offset) so that constant parts of an index - very
// common after unrolling - end up in the instruction's immediate ([%rd4+48]) instead of extra adds.
//   global  base = the tensor's global-window address (cvta.to.global at entry); every non-constant index
//           contributes idx * stride_bytes in 64-bit (mul.wide.s32 with a constant stride, else cvt + mul.lo
//           with the 64-bit stride computed at entry from the shape variables, row-major unless stride(..)).
//   shared  base = the 32-bit shared-window address of cake_smem (one register set at entry), plus the
//           declaration's offset from sema's layout, plus idx * stride in 32-bit; arrays declared with
//           swizzle(32B|64B|128B) XOR bits [4,7) of the byte offset with bits [7,10) (the CUTLASS / TMA
//           swizzle patterns), applied to the offset from the array's start (which sema aligns); a
//           swizzled array whose rows are wider than the span is stored as column blocks one span wide
//           (SharedLayout.h): the row index steps one span, the column index picks the block.
// Accesses are split into the widest PTX vectors: up to 16 bytes per instruction (ld.global.v4.b32 for
// bf16x8, ld.shared.v4.f32 for f32x4).  Loads from tensors the kernel never writes use ld.global.nc.
#include "codegen/KernelLowering.h"

#include "frontend/ASTPrinter.h"
#include "frontend/TensorWrites.h"

namespace cake::codegen {

namespace {
unsigned elemBytes(Scalar s) { return std::max(1u, scalarBits(concreteScalar(s)) / 8); }

} // namespace

std::string KernelLowering::smemBase() {
  if (smemBaseReg_.empty()) CAKE_INTERNAL_ERROR("shared memory base used before it was set up");
  return smemBaseReg_;
}

void KernelLowering::setupGlobalTensor(const Param &p, size_t paramIndex) {
  GlobalTensor g;
  g.param = paramIndex;
  auto vt = parseValueTypeName(p.declaredType->baseName);
  if (!vt || !vt->isScalar()) {
    diags_.report(DiagKind::CodegenUnsupportedForm, p.nameRange, "a tensor of element type '" + p.declaredType->baseName + "'");
    return;
  }
  g.elem = vt->elem;
  g.readOnly = !kernel_.body || !writesTensor(*kernel_.body, &p);
  std::string raw = out_.newReg(RegClass::B64);
  g.base = out_.newReg(RegClass::B64);
  out_.inst("ld.param.u64 " + raw + ", [cake_param_" + p.name + "]");
  out_.inst("cvta.to.global.u64 " + g.base + ", " + raw);
  for (const auto &d : p.declaredType->dimGroups.front()) g.dims.push_back(lowerExpr(*d));
  const int64_t eb = elemBytes(g.elem);
  auto toI64 = [&](const Value &v) -> Value {
    if (v.isConst()) return Value::ofInt(Scalar::I64, v.constant->i);
    if (concreteScalar(v.type.elem) == Scalar::I64) return v;
    return convert(v, ValueType::scalar(Scalar::I64), p.nameRange);
  };
  Value ebv = Value::ofInt(Scalar::I64, eb);
  const Attr *strideAttr = nullptr;
  for (const auto &a : p.attrs)
    if (a.name == "stride") strideAttr = &a;
  size_t rank = g.dims.size();
  g.strideBytes.assign(rank, Value::ofInt(Scalar::I64, eb));
  g.stride32.assign(rank, {Value{}, 0});
  auto is32 = [](const Value &v) {
    return !v.isConst() && v.regs.size() == 1 && v.type.isScalar() && concreteScalar(v.type.elem) == Scalar::I32;
  };
  if (strideAttr && strideAttr->args.size() == rank) {
    for (size_t k = 0; k < rank; ++k) {
      Value s = lowerExpr(*strideAttr->args[k].value);
      if (is32(s)) g.stride32[k] = {s, eb};
      g.strideBytes[k] = binaryOp(BinaryOp::Mul, toI64(s), ebv, p.nameRange);
    }
  } else {
    for (size_t k = rank; k-- > 1;)
      g.strideBytes[k - 1] = binaryOp(BinaryOp::Mul, g.strideBytes[k], toI64(g.dims[k]), p.nameRange);
    if (rank >= 2 && is32(g.dims[rank - 1])) g.stride32[rank - 2] = {g.dims[rank - 1], eb};
  }
  env_[&p] = std::move(g);
}

bool KernelLowering::isMemoryAccess(const Expr &e) const {
  if (!isa<IndexExpr>(&e)) return false;
  const NameExpr *n = indexRoot(e);
  if (!n || !n->decl) return false;
  auto it = env_.find(n->decl);
  if (it == env_.end()) return false;
  return std::holds_alternative<GlobalTensor>(it->second) || std::holds_alternative<SharedArray>(it->second);
}

std::optional<MemRef> KernelLowering::resolveMemRef(const Expr &e) {
  std::vector<const IndexExpr *> chain;
  const Expr *cur = &e;
  while (const auto *ix = dynCast<IndexExpr>(cur)) {
    chain.push_back(ix);
    cur = ix->base.get();
  }
  const NameExpr *n = dynCast<NameExpr>(cur);
  if (!n || !n->decl) return std::nullopt;
  auto it = env_.find(n->decl);
  if (it == env_.end()) return std::nullopt;
  std::vector<Value> indices;
  unsigned lanes = 1;
  bool sliceSeen = false;
  for (auto rit = chain.rbegin(); rit != chain.rend(); ++rit) {
    for (const auto &item : (*rit)->items) {
      if (item.kind == IndexItem::Full || sliceSeen) {
        diags_.report(DiagKind::CodegenUnsupportedForm, item.range,
                      "a tile (':' or a slice before the last index) where one element or vector is read or written");
        return std::nullopt;
      }
      indices.push_back(lowerExpr(*item.start));
      if (item.kind == IndexItem::Slice) {
        auto len = constIntExpr(*item.length);
        if (!len || *len < 1 || *len > 64) {
          diags_.report(DiagKind::CodegenUnsupportedForm, item.range, "a slice whose length is not a constant in 1..64");
          return std::nullopt;
        }
        lanes = static_cast<unsigned>(*len);
        sliceSeen = true;
      }
    }
  }
  return memRefAt(it->second, indices, lanes, e.range);
}

MemRef KernelLowering::memRefAt(const Binding &tensor, const std::vector<Value> &indices, unsigned lanes,
                                SourceRange where) {
  MemRef m;
  m.lanes = lanes;
  if (const auto *g = std::get_if<GlobalTensor>(&tensor)) {
    m.elem = g->elem;
    m.global = g;
    if (indices.size() != g->strideBytes.size()) {
      diags_.report(DiagKind::CodegenUnsupportedForm, where, "an index count that does not match the tensor's rank");
      m.addr = {g->base, 0};
      return m;
    }
    int64_t constOff = 0;
    std::string acc;
    std::vector<std::pair<int64_t, size_t>> runtimeConstTerms;   // c * stride of dim k (runtime), added last
    for (size_t k = 0; k < indices.size(); ++k) {
      const Value &idx = indices[k];
      const Value &stride = g->strideBytes[k];
      auto ci = constInt(idx);
      auto cs = constInt(stride);
      if (ci && cs) {
        constOff += *ci * *cs;
        continue;
      }
      std::string term = out_.newReg(RegClass::B64);
      bool idx64 = !ci && concreteScalar(idx.type.elem) == Scalar::I64;
      if (cs && !idx64 && *cs >= INT32_MIN && *cs <= INT32_MAX) {
        bool isUnsigned = concreteScalar(idx.type.elem) == Scalar::U32;
        // (base + c) * stride = base * stride + c * stride: the constant moves into the offset.
        auto [base, off] = affineParts(idx);
        std::string r = reg(idx);
        if (!base.empty() && !isUnsigned) {
          r = base;
          constOff += off * *cs;
        }
        out_.inst(std::string(isUnsigned ? "mul.wide.u32 " : "mul.wide.s32 ") + term + ", " + r + ", " +
                  std::to_string(*cs));
      } else if (!ci && !idx64) {
        // Runtime stride, 32-bit index x + c (x a register, c a constant part, possibly 0): the term is
        // x * stride plus c * stride added last, so the unrolled copies of an access that differ only in c
        // (rows v * 32 + t / 8 of a tile) share x * stride; x is zero-extended when known non-negative
        // (no sign-extension arithmetic).
        auto [base, off] = affineParts(idx);
        Value x = idx;
        if (!base.empty() && off != 0) {
          x = Value::ofRegs(idx.type, {base});
          if (auto lb = lowerBoundOf(idx)) x.lowerBound = *lb - off;
          runtimeConstTerms.push_back({off, k});
        }
        std::string wide;
        if (knownNonNegative(x) || concreteScalar(x.type.elem) == Scalar::U32) {
          wide = out_.newReg(RegClass::B64);
          out_.inst("cvt.u64.u32 " + wide + ", " + reg(x));
        } else {
          wide = reg(convert(x, ValueType::scalar(Scalar::I64), where));
        }
        out_.inst("mul.lo.s64 " + term + ", " + wide + ", " + operand(stride));
      } else {
        Value i64 = ci ? Value::ofInt(Scalar::I64, *ci) : idx;
        out_.inst("mul.lo.s64 " + term + ", " + reg(i64) + ", " + operand(stride));
      }
      if (acc.empty()) {
        acc = term;
      } else {
        std::string sum = out_.newReg(RegClass::B64);
        out_.inst("add.s64 " + sum + ", " + acc + ", " + term);
        acc = sum;
      }
    }
    std::string a = g->base;
    if (!acc.empty()) {
      a = out_.newReg(RegClass::B64);
      out_.inst("add.s64 " + a + ", " + g->base + ", " + acc);
    }
    for (const auto &[c, k] : runtimeConstTerms) {
      std::string sum = out_.newReg(RegClass::B64);
      const auto &[s32, mult] = k < g->stride32.size() ? g->stride32[k] : std::pair<Value, int64_t>{};
      if (!s32.regs.empty() && c * mult > INT32_MIN && c * mult < INT32_MAX) {
        // stride = s32 * mult with s32 a 32-bit value: one multiply-add of 32-bit operands into 64 bits
        bool unsignedMad = c * mult >= 0 && knownNonNegative(s32);
        out_.inst(std::string(unsignedMad ? "mad.wide.u32 " : "mad.wide.s32 ") + sum + ", " + s32.regs[0] + ", " +
                  std::to_string(c * mult) + ", " + a);
      } else {
        std::string scaled = out_.newReg(RegClass::B64);
        out_.inst("mul.lo.s64 " + scaled + ", " + reg(g->strideBytes[k]) + ", " + std::to_string(c));
        out_.inst("add.s64 " + sum + ", " + a + ", " + scaled);
      }
      a = sum;
    }
    m.addr = {a, constOff};
    return m;
  }
  const auto *s = std::get_if<SharedArray>(&tensor);
  if (!s) {
    diags_.report(DiagKind::CodegenUnsupportedForm, where, "indexing this name as memory");
    return m;
  }
  m.shared = true;
  m.elem = s->elem;
  std::vector<int64_t> dims;
  for (const auto &g : s->groups) dims.insert(dims.end(), g.begin(), g.end());
  if (indices.size() != dims.size()) {
    diags_.report(DiagKind::CodegenUnsupportedForm, where, "an index count that does not match the shared array's dims");
    m.addr = {smemBase(), s->offset};
    return m;
  }
  std::vector<int64_t> strides(dims.size(), elemBytes(s->elem));
  for (size_t k = dims.size(); k-- > 1;) strides[k - 1] = strides[k] * dims[k];
  // A swizzled array whose rows are wider than the span is stored in column blocks (SharedLayout.h): rows
  // step one span inside a block, the column picks the block.
  const ColumnBlocks blocks = columnBlocks(*s);
  if (blocks.blocked() && dims.size() >= 2) strides[dims.size() - 2] = blocks.rowStride();
  int64_t constOff = 0;
  std::string acc;
  for (size_t k = 0; k < indices.size(); ++k) {
    if (k + 1 == indices.size() && blocks.blocked())
      accumulateColumnOffset(indices[k], nullptr, blocks, acc, constOff, where);
    else
      accumulateSharedOffset(indices[k], strides[k], acc, constOff, where);
  }
  if (s->swizzleBytes) {
    int64_t mask = s->swizzleBytes == 128 ? 0x70 : s->swizzleBytes == 64 ? 0x30 : 0x10;
    if (acc.empty()) {
      int64_t off = constOff ^ ((constOff >> 3) & mask);
      m.addr = {smemBase(), s->offset + off};
      return m;
    }
    std::string full = out_.newReg(RegClass::B32), sh = out_.newReg(RegClass::B32), x = out_.newReg(RegClass::B32),
                sw = out_.newReg(RegClass::B32), a = out_.newReg(RegClass::B32);
    out_.inst("add.s32 " + full + ", " + acc + ", " + std::to_string(constOff));
    out_.inst("shr.u32 " + sh + ", " + full + ", 3");
    out_.inst("and.b32 " + x + ", " + sh + ", " + std::to_string(mask));
    out_.inst("xor.b32 " + sw + ", " + full + ", " + x);
    out_.inst("add.s32 " + a + ", " + smemBase() + ", " + sw);
    m.addr = {a, s->offset};
    return m;
  }
  if (acc.empty()) {
    m.addr = {smemBase(), s->offset + constOff};
    return m;
  }
  std::string a = out_.newReg(RegClass::B32);
  out_.inst("add.s32 " + a + ", " + smemBase() + ", " + acc);
  m.addr = {a, s->offset + constOff};
  return m;
}

namespace {
// Splits `regs` registers of `regBytes` each into PTX vector accesses of at most 16 bytes.
std::vector<std::pair<size_t, size_t>> accessGroups(size_t regs, unsigned regBytes) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t maxPer = std::max<size_t>(1, std::min<size_t>(4, 16 / regBytes));
  size_t i = 0;
  while (i < regs) {
    size_t n = maxPer;
    while (n > regs - i) n /= 2;
    out.push_back({i, n});
    i += n;
  }
  return out;
}
std::string vecSuffix(size_t n) { return n == 4 ? ".v4" : n == 2 ? ".v2" : ""; }
} // namespace

void KernelLowering::requireAlignment(const GlobalTensor *g, int64_t bytes) {
  if (!g || g->param >= manifest_.params.size()) return;
  int64_t &align = manifest_.params[g->param].align;
  align = std::max(align, std::min<int64_t>(bytes, 16));
}

Value KernelLowering::load(const MemRef &m) {
  ValueType t = m.lanes == 1 ? ValueType::scalar(m.elem) : ValueType::vector(m.elem, m.lanes);
  auto st = storageOf(t);
  if (!st || st->cls == RegClass::Pred || (m.lanes == 1 && scalarBits(m.elem) < 16)) {
    diags_.report(DiagKind::CodegenUnsupportedForm, out_.location(), "a load of " + typeName(t));
    return placeholder(t);
  }
  Value v = freshValue(t);
  unsigned regBytes = st->cls == RegClass::B64 ? 8 : st->cls == RegClass::B16 ? 2 : 4;
  std::string ty = std::string(regDeclType(st->cls)).substr(1);
  std::string space = m.shared ? "ld.shared" : (m.global && m.global->readOnly ? "ld.global.nc" : "ld.global");
  for (auto [first, n] : accessGroups(v.regs.size(), regBytes)) {
    Address a = m.addr;
    a.offset += static_cast<int64_t>(first * regBytes);
    std::string dst;
    if (n == 1) {
      dst = v.regs[first];
    } else {
      dst = "{";
      for (size_t i = 0; i < n; ++i) dst += (i ? ", " : "") + v.regs[first + i];
      dst += "}";
    }
    if (n > 1 || regBytes > elemBytes(m.elem)) requireAlignment(m.global, static_cast<int64_t>(n * regBytes));
    out_.inst(space + vecSuffix(n) + "." + ty + " " + dst + ", " + a.str());
  }
  return v;
}

void KernelLowering::store(const MemRef &m, const Value &v0) {
  ValueType t = m.lanes == 1 ? ValueType::scalar(m.elem) : ValueType::vector(m.elem, m.lanes);
  auto st = storageOf(t);
  if (!st || st->cls == RegClass::Pred || (m.lanes == 1 && scalarBits(m.elem) < 16)) {
    diags_.report(DiagKind::CodegenUnsupportedForm, out_.location(), "a store of " + typeName(t));
    return;
  }
  Value v = v0;
  if (v.isConst()) {
    v = adapt(v, ValueType::scalar(m.elem));
    if (t.isVector()) v = convert(v, t, out_.location());
  } else if (!(v.type == t)) {
    if (v.type.lanes != t.lanes && !v.type.isScalar()) {
      diags_.report(DiagKind::CodegenUnsupportedForm, out_.location(),
                    "a store of " + typeName(v.type) + " into " + typeName(t));
      return;
    }
    v = convert(v, t, out_.location());
  }
  std::vector<std::string> regs = v.isConst() ? std::vector<std::string>{reg(v)} : v.regs;
  unsigned regBytes = st->cls == RegClass::B64 ? 8 : st->cls == RegClass::B16 ? 2 : 4;
  std::string ty = std::string(regDeclType(st->cls)).substr(1);
  std::string space = m.shared ? "st.shared" : "st.global";
  for (auto [first, n] : accessGroups(regs.size(), regBytes)) {
    Address a = m.addr;
    a.offset += static_cast<int64_t>(first * regBytes);
    std::string src;
    if (n == 1) {
      src = regs[first];
    } else {
      src = "{";
      for (size_t i = 0; i < n; ++i) src += (i ? ", " : "") + regs[first + i];
      src += "}";
    }
    if (n > 1 || regBytes > elemBytes(m.elem)) requireAlignment(m.global, static_cast<int64_t>(n * regBytes));
    out_.inst(space + vecSuffix(n) + "." + ty + " " + a.str() + ", " + src);
  }
}

// Adds index * stride to a 32-bit shared-memory byte offset: constants (and the constant part of an affine
// index) go into `constOff`, the rest into the register `acc` (mov/shl/mul for the first term, mad after).
void KernelLowering::accumulateSharedOffset(Value idx, int64_t stride, std::string &acc, int64_t &constOff,
                                            SourceRange where) {
  if (auto c = constInt(idx)) {
    constOff += *c * stride;
    return;
  }
  if (concreteScalar(idx.type.elem) == Scalar::I64) idx = convert(idx, ValueType::scalar(Scalar::I32), where);
  std::string r = reg(idx);
  if (auto [base, off] = affineParts(idx); !base.empty()) {
    r = base;
    constOff += off * stride;
  }
  std::string next = out_.newReg(RegClass::B32);
  if (acc.empty()) {
    if (auto sh = exactLog2(stride); sh && *sh == 0) out_.inst("mov.b32 " + next + ", " + r);
    else if (sh) out_.inst("shl.b32 " + next + ", " + r + ", " + std::to_string(*sh));
    else out_.inst("mul.lo.s32 " + next + ", " + r + ", " + std::to_string(stride));
  } else {
    out_.inst("mad.lo.s32 " + next + ", " + r + ", " + std::to_string(stride) + ", " + acc);
  }
  acc = next;
}

} // namespace cake::codegen
