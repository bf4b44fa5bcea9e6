// Sema, kernels: everything a kernel declares outside its statements, and the kernel-level resources.
//
//   target      the module's target (E0401 when unknown); --arch overrides it
//   ct params   <BM = 128>: defaults are constant expressions over earlier ct params; -D NAME=VALUE
//               overrides every kernel that has NAME; a define no kernel has is E0323
//   params      tensor params live in global memory; a bare unknown name among their dims declares a shape
//               variable (implicit i32 param); attributes tma(box=[..], swizzle=..), stride(..), align(n)
//   attributes  requires(pred, ...), grid(1..3 extents), threads(n), cluster(1..3 extents) - each at most
//               once (E0411); grid and threads are required (E0409); bad values are E0408
//   resources   shared arrays (constant dims, swizzle/align), mbarriers (arrivals), named barriers
//               (id, threads); only directly in the kernel body (E0322).  After the body, shared memory
//               is laid out in declaration order (each array aligned: 16 bytes by default, 256/512/1024
//               for swizzle 32B/64B/128B, or align(n)), then the mbarriers (8 bytes each, 8-aligned), and
//               the total is checked against the target's per-block limit (E0414).
#include "frontend/SemaImpl.h"

#include <algorithm>

namespace cake {

int64_t maxSharedBytes(Arch a) {
  switch (a) {
  case Arch::SM80: return 163 * 1024;
  case Arch::SM86: case Arch::SM89: case Arch::SM120: return 99 * 1024;
  case Arch::SM90: case Arch::SM90a: case Arch::SM100a: return 227 * 1024;
  case Arch::Count_: break;
  }
  return 48 * 1024;
}

namespace {
int64_t alignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }
bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
} // namespace

void Sema::analyzeTarget() {
  std::optional<Arch> parsed = parseArch(module_.target);
  if (!parsed && !module_.target.empty()) {
    auto d = diags_.report(DiagKind::UnknownTarget, module_.targetRange, module_.target);
    std::vector<std::string> names;
    for (unsigned i = 0; i < static_cast<unsigned>(Arch::Count_); ++i) names.emplace_back(archName(static_cast<Arch>(i)));
    std::string best = closestName(module_.target, names);
    if (!best.empty()) d.hint("did you mean " + quote(best) + "?").fixit(module_.targetRange, best);
    else d.hint("targets: " + allArchNames());
  }
  arch_ = opts_.archOverride ? opts_.archOverride : parsed;
  result_.arch = arch_ ? *arch_ : Arch::SM80;
}

std::map<std::string, Attr *> Sema::collectAttrs(std::vector<Attr> &attrs, std::initializer_list<std::string_view> allowed,
                                                 std::string_view onWhat) {
  std::map<std::string, Attr *> out;
  for (Attr &a : attrs) {
    bool known = std::find(allowed.begin(), allowed.end(), a.name) != allowed.end();
    if (!known) {
      auto d = diags_.report(DiagKind::UnknownAttribute, a.nameRange, a.name, onWhat);
      std::vector<std::string> names(allowed.begin(), allowed.end());
      std::string best = closestName(a.name, names);
      if (!best.empty()) d.hint("did you mean " + quote(best) + "?").fixit(a.nameRange, best);
      else {
        std::string list;
        for (auto n : allowed) list += (list.empty() ? "" : ", ") + std::string(n) + "(...)";
        d.hint(std::string(onWhat) + " accepts " + (list.empty() ? "no attributes" : list));
      }
      // Resolve names in the arguments anyway so that they do not cascade into other errors.
      for (AttrArg &arg : a.args)
        if (arg.value && !isa<ListExpr>(arg.value.get())) checkExpr(*arg.value, ExprMode::Operand);
      continue;
    }
    auto [it, inserted] = out.emplace(a.name, &a);
    if (!inserted) {
      diags_.report(DiagKind::DuplicateClause, a.nameRange, a.name)
          .note(it->second->nameRange, "previous '" + a.name + "' is here");
    }
  }
  return out;
}

bool Sema::checkDeclPlacement(const Decl &d, SourceRange r, std::string_view what, const StmtContext &ctx) {
  if (ctx.depth == 0) return true;
  auto diag = diags_.report(DiagKind::DeclarationNotAllowedHere, d.nameRange, std::string(what) + " " + quote(d.name),
                            "directly in the kernel body (outside roles, loops, conditionals and blocks)");
  if (ctx.role) diag.note(ctx.role->nameRange, "inside role " + quote(ctx.role->name) + " declared here");
  return false;
}

// ---------------------------------------------------------------- compile-time parameters

void Sema::analyzeCtParams(Kernel &k) {
  for (auto &ctPtr : k.ctParams) {
    if (!ctPtr) continue;
    CtParam &ct = *ctPtr;
    if (ct.isType) {
      analyzeTypeParam(ct);
      declare(ct);
      continue;
    }
    ct.type = types_.untypedInt();
    std::optional<int64_t> value;
    if (ct.defaultValue) {
      substituteTypeParams(ct.defaultValue);   // sizeof(T) of an earlier type parameter
      value = constInt(*ct.defaultValue, "the default of a compile-time parameter");
    }
    auto def = opts_.defines.find(ct.name);
    if (def != opts_.defines.end()) value = def->second;
    if (auto tdef = opts_.typeDefines.find(ct.name); tdef != opts_.typeDefines.end())
      diags_.report(DiagKind::IntDefineIsType, ct.nameRange, ct.name, tdef->second, k.name)
          .hint("give an integer, e.g. -D " + ct.name + "=128, or declare '" + ct.name + ": type = " + tdef->second +
                "' to make it a type parameter");
    ct.value = value;
    if (value) info_->ctValues[ct.name] = *value;
    declare(ct);
  }
}

void Sema::checkUnknownDefines() {
  std::map<std::string, std::string> all;   // name -> value as written
  for (const auto &[name, value] : opts_.defines) all[name] = std::to_string(value);
  for (const auto &[name, value] : opts_.typeDefines) all[name] = value;
  for (const auto &[name, value] : all) {
    bool used = false;
    std::vector<std::string> ctNames;
    std::string kernels;
    for (auto &k : module_.kernels) {
      if (!k) continue;
      kernels += (kernels.empty() ? "" : "', '") + k->name;
      for (auto &ct : k->ctParams) {
        if (!ct) continue;
        ctNames.push_back(ct->name);
        if (ct->name == name) used = true;
      }
    }
    if (used) continue;
    SourceRange where = module_.targetRange;
    for (auto &k : module_.kernels)
      if (k) { where = k->nameRange; break; }
    auto d = diags_.report(DiagKind::UnknownDefine, where, name, kernels);
    std::string best = closestName(name, ctNames);
    if (!best.empty()) d.hint("did you mean -D " + best + "=" + value + "?");
    else if (ctNames.empty()) d.hint("the kernel has no compile-time parameters; declare one as kernel " +
                                     (kernels.empty() ? std::string("k") : kernels) + "<" + name + " = ...>(...)");
  }
}

// ---------------------------------------------------------------- parameters

void Sema::analyzeParams(Kernel &k) {
  for (auto &pPtr : k.params) {
    if (!pPtr) continue;
    Param &p = *pPtr;
    p.type = p.declaredType ? resolveType(*p.declaredType, TypeUse::Param) : types_.error();
    declare(p);
  }
  for (auto &pPtr : k.params)
    if (pPtr) analyzeParamAttrs(*pPtr);
}

namespace {
// swizzle(128B) / swizzle=none -> bytes (0 = none).
std::optional<int64_t> swizzleBytes(Sema &S, Expr &e, std::string_view attr) {
  if (auto *n = dynCast<NameExpr>(&e); n && n->name == "none") return 0;
  if (auto *lit = dynCast<IntLitExpr>(&e)) {
    if (lit->isBytes && (lit->value == 32 || lit->value == 64 || lit->value == 128)) return static_cast<int64_t>(lit->value);
    if (!lit->isBytes && (lit->value == 32 || lit->value == 64 || lit->value == 128)) {
      S.diags_.report(DiagKind::BadAttributeArgument, e.range, attr, "the swizzle mode is written with a B suffix")
          .fixit(SourceRange{{e.range.begin.file, e.range.end}, e.range.end}, "B");
      return std::nullopt;
    }
  }
  S.diags_.report(DiagKind::BadAttributeArgument, e.range, attr, "the swizzle mode is 32B, 64B, 128B or none, not " + S.text(e));
  return std::nullopt;
}
} // namespace

void Sema::analyzeParamAttrs(Param &p) {
  if (!p.type || p.type->isError()) {
    for (Attr &a : p.attrs)
      for (AttrArg &arg : a.args)
        if (arg.value && !isa<ListExpr>(arg.value.get())) checkExpr(*arg.value, ExprMode::Operand);
    return;
  }
  if (!p.type->isTensor()) {
    collectAttrs(p.attrs, {}, "scalar parameter " + quote(p.name));
    return;
  }
  auto attrs = collectAttrs(p.attrs, {"tma", "stride", "align"}, "tensor parameter " + quote(p.name));
  TensorParamInfo &ti = info_->tensorParams[&p];
  ti.param = &p;
  std::vector<TensorDim> dims = p.type->allDims();
  int64_t elemBytes = p.type->element->sizeInBytes().value_or(1);

  if (auto it = attrs.find("tma"); it != attrs.end()) {
    Attr &a = *it->second;
    checkArch(archsFrom(Arch::SM90), "'tma'", a.nameRange);
    ti.tma = true;
    bool haveBox = false, ok = true;
    if (dims.size() > 5) {
      diags_.report(DiagKind::TmaRankUnsupported, p.nameRange, p.name, std::to_string(dims.size()))
          .hint("fold adjacent contiguous dims into one");
      ok = false;
    }
    for (AttrArg &arg : a.args) {
      if (!arg.value) continue;
      if (arg.key == "box") {
        haveBox = true;
        auto *list = dynCast<ListExpr>(arg.value.get());
        if (!list) {
          diags_.report(DiagKind::BadAttributeArgument, arg.value->range, "tma", "box is a list, e.g. box=[BM, BK]");
          ok = false;
          continue;
        }
        list->type = types_.voidType();
        for (auto &el : list->elements) {
          if (!el) { ok = false; continue; }
          auto v = constInt(*el, "a TMA box dimension");
          if (!v) { ok = false; continue; }
          adaptUntyped(*el, types_.i32());
          if (*v < 1 || *v > 256) {
            diags_.report(DiagKind::BadAttributeArgument, el->range, "tma",
                          "box dimension " + std::to_string(*v) + " is outside 1..256");
            ok = false;
          }
          ti.box.push_back(*v);
        }
        if (ok && list->elements.size() != dims.size()) {
          diags_.report(DiagKind::BadAttributeArgument, list->range, "tma",
                        "box has " + std::to_string(list->elements.size()) + " dimensions but " + quote(p.name) +
                            " has " + std::to_string(dims.size()));
          ok = false;
        }
      } else if (arg.key == "swizzle") {
        if (auto s = swizzleBytes(*this, *arg.value, "tma")) ti.swizzleBytes = *s;
        else ok = false;
      } else {
        diags_.report(DiagKind::BadAttributeArgument, arg.key.empty() ? arg.value->range : arg.keyRange, "tma",
                      (arg.key.empty() ? std::string("positional argument") : "unknown key " + quote(arg.key)) +
                          "; expected box=[...] and swizzle=...");
        if (!isa<ListExpr>(arg.value.get())) checkExpr(*arg.value, ExprMode::Operand);
        ok = false;
      }
    }
    if (!haveBox) {
      diags_.report(DiagKind::BadAttributeArgument, a.range, "tma", "box=[...] is missing")
          .hint("a TMA tensor map copies boxes: tma(box=[BM, BK], swizzle=128B)");
      ok = false;
    }
    if (ok && !ti.box.empty()) {
      int64_t innerBytes = ti.box.back() * elemBytes;
      if (innerBytes % 16 != 0)
        diags_.report(DiagKind::BadAttributeArgument, a.range, "tma",
                      "the innermost box dimension is " + std::to_string(innerBytes) +
                          " bytes; TMA needs a multiple of 16 bytes");
      else if (ti.swizzleBytes && innerBytes > ti.swizzleBytes)
        diags_.report(DiagKind::BadAttributeArgument, a.range, "tma",
                      "the innermost box dimension is " + std::to_string(innerBytes) + " bytes, more than the " +
                          std::to_string(ti.swizzleBytes) + "-byte swizzle span");
    }
    if (!ok) ti.box.clear();
  }

  if (auto it = attrs.find("stride"); it != attrs.end()) {
    Attr &a = *it->second;
    for (AttrArg &arg : a.args) {
      if (!arg.value) continue;
      if (!arg.key.empty())
        diags_.report(DiagKind::BadAttributeArgument, arg.keyRange, "stride", "stride takes positional values");
      const Type *t = checkExpr(*arg.value);
      if (t->isError() || !checkInteger(*arg.value, "a stride")) continue;
      if (t->isUntyped()) adaptUntyped(*arg.value, types_.i32());
      ti.strides.push_back(arg.value.get());
    }
    if (a.args.size() != dims.size()) {
      diags_.report(DiagKind::BadAttributeArgument, a.range, "stride",
                    quote(p.name) + " has " + std::to_string(dims.size()) + " dimensions but " +
                        std::to_string(a.args.size()) + " strides are given");
    } else if (!a.args.empty() && a.args.back().value) {
      ConstResult r = constEval_.evaluate(*a.args.back().value);
      if (!r.ok() || r.value != 1)
        diags_.report(DiagKind::BadAttributeArgument, a.args.back().value->range, "stride",
                      "the innermost stride must be 1 (elements of a row are contiguous)");
    }
  }

  if (auto it = attrs.find("align"); it != attrs.end()) {
    Attr &a = *it->second;
    if (a.args.size() != 1 || !a.args[0].value) {
      diags_.report(DiagKind::BadAttributeArgument, a.range, "align", "align takes one byte count, e.g. align(16)");
    } else if (auto v = constInt(*a.args[0].value, "an alignment")) {
      if (!isPowerOfTwo(*v) || *v < elemBytes || *v > 4096)
        diags_.report(DiagKind::BadAttributeArgument, a.args[0].value->range, "align",
                      "the alignment must be a power of two between the element size (" + std::to_string(elemBytes) +
                          ") and 4096, not " + std::to_string(*v));
      else ti.alignment = *v;
    }
  }
}

// ---------------------------------------------------------------- kernel attributes

void Sema::analyzeKernelAttrs(Kernel &k) {
  auto attrs = collectAttrs(k.attrs, {"requires", "grid", "threads", "cluster"}, "kernel " + quote(k.name));
  auto keyed = [&](Attr &a) {
    for (AttrArg &arg : a.args)
      if (!arg.key.empty())
        diags_.report(DiagKind::BadAttributeArgument, arg.keyRange, a.name, a.name + " takes positional values");
  };

  if (auto it = attrs.find("requires"); it != attrs.end()) {
    Attr &a = *it->second;
    keyed(a);
    for (AttrArg &arg : a.args) {
      if (!arg.value) continue;
      const Type *t = checkExpr(*arg.value);
      if (t->isError() || !checkPred(*arg.value, "a requires condition")) continue;
      info_->requirements.push_back(arg.value.get());
      ConstResult r = constEval_.evaluate(*arg.value);
      if (r.ok() && r.value == 0) {
        std::string values;
        for (auto &[n, v] : info_->ctValues) values += (values.empty() ? "" : ", ") + n + " = " + std::to_string(v);
        for (auto &[n, v] : info_->ctTypes) values += (values.empty() ? "" : ", ") + n + " = " + v;
        diags_.report(DiagKind::BadAttributeArgument, arg.value->range, "requires",
                      quote(text(*arg.value)) + " is false for the compile-time parameters (" + values + ")");
      }
    }
  }

  if (auto it = attrs.find("threads"); it != attrs.end()) {
    Attr &a = *it->second;
    keyed(a);
    if (a.args.size() != 1 || !a.args[0].value) {
      diags_.report(DiagKind::BadLaunch, a.range, "threads(...) takes one constant thread count");
    } else if (auto v = constInt(*a.args[0].value, "the thread count")) {
      adaptUntyped(*a.args[0].value, types_.i32());
      if (*v < 32 || *v > 1024 || *v % 32 != 0)
        diags_.report(DiagKind::BadLaunch, a.args[0].value->range,
                      "threads(" + std::to_string(*v) + "): the thread count must be a multiple of 32 in 32..1024");
      else info_->threads = *v;
    }
  } else {
    diags_.report(DiagKind::MissingLaunchClause, k.nameRange, k.name, "threads")
        .hint("state the block size, e.g. threads(128)");
  }

  if (auto it = attrs.find("grid"); it != attrs.end()) {
    Attr &a = *it->second;
    keyed(a);
    if (a.args.empty() || a.args.size() > 3)
      diags_.report(DiagKind::BadLaunch, a.range, "grid(...) takes 1 to 3 extents, " + std::to_string(a.args.size()) + " given");
    for (AttrArg &arg : a.args) {
      if (!arg.value) continue;
      const Type *t = checkExpr(*arg.value);
      if (t->isError() || !checkInteger(*arg.value, "a grid extent")) continue;
      concretize(*arg.value);
      ConstResult r = constEval_.evaluate(*arg.value);
      if (r.ok() && r.value <= 0)
        diags_.report(DiagKind::BadLaunch, arg.value->range,
                      "the grid extent " + quote(text(*arg.value)) + " is " + std::to_string(r.value) + "; extents must be positive");
      else if (r.ok() && r.value > INT32_MAX)
        diags_.report(DiagKind::BadLaunch, arg.value->range, "the grid extent " + std::to_string(r.value) + " is too large");
      info_->grid.push_back(arg.value.get());
    }
  } else {
    diags_.report(DiagKind::MissingLaunchClause, k.nameRange, k.name, "grid")
        .hint("state the number of blocks, e.g. grid(cdiv(M, BM), cdiv(N, BN))");
  }

  if (auto it = attrs.find("cluster"); it != attrs.end()) {
    Attr &a = *it->second;
    keyed(a);
    checkArch(archsFrom(Arch::SM90), "'cluster'", a.nameRange);
    if (a.args.empty() || a.args.size() > 3)
      diags_.report(DiagKind::BadLaunch, a.range, "cluster(...) takes 1 to 3 extents, " + std::to_string(a.args.size()) + " given");
    bool ok = a.args.size() >= 1 && a.args.size() <= 3;
    std::array<int64_t, 3> c = {1, 1, 1};
    for (size_t i = 0; i < a.args.size() && i < 3; ++i) {
      if (!a.args[i].value) { ok = false; continue; }
      auto v = constInt(*a.args[i].value, "a cluster extent");
      if (!v) { ok = false; continue; }
      adaptUntyped(*a.args[i].value, types_.i32());
      if (*v < 1 || *v > 16) {
        diags_.report(DiagKind::BadLaunch, a.args[i].value->range,
                      "cluster extent " + std::to_string(*v) + " is outside 1..16");
        ok = false;
      }
      c[i] = *v;
    }
    if (ok && c[0] * c[1] * c[2] > 16) {
      diags_.report(DiagKind::BadLaunch, a.range,
                    "a cluster of " + std::to_string(c[0] * c[1] * c[2]) + " CTAs is larger than 16 (8 portable)");
      ok = false;
    }
    if (ok) {
      info_->cluster = c;
      info_->hasCluster = true;
    }
  }
}

// ---------------------------------------------------------------- kernel-scope declarations

void Sema::analyzeShared(SharedStmt &s, const StmtContext &ctx) {
  checkDeclPlacement(s, s.range, s.tensorMemory ? "tmem array" : "shared array", ctx);
  s.type = s.declaredType ? resolveType(*s.declaredType, TypeUse::Shared) : types_.error();
  if (s.tensorMemory) {
    SharedAllocation slot;
    slot.decl = &s;
    if (analyzeTmemDecl(s, slot)) info_->shared.push_back(slot);
    declare(s);
    return;
  }
  auto attrs = collectAttrs(s.attrs, {"swizzle", "align"}, "shared array " + quote(s.name));
  SharedAllocation alloc;
  alloc.decl = &s;
  bool ok = !s.type->isError();
  std::optional<int64_t> explicitAlign;
  Attr *alignAttr = nullptr, *swizzleAttr = nullptr;
  if (auto it = attrs.find("swizzle"); it != attrs.end()) {
    swizzleAttr = it->second;
    if (swizzleAttr->args.size() != 1 || !swizzleAttr->args[0].value)
      diags_.report(DiagKind::BadAttributeArgument, swizzleAttr->range, "swizzle", "swizzle takes one mode: 32B, 64B, 128B or none");
    else if (auto b = swizzleBytes(*this, *swizzleAttr->args[0].value, "swizzle"))
      alloc.swizzleBytes = *b;
  }
  if (auto it = attrs.find("align"); it != attrs.end()) {
    alignAttr = it->second;
    if (alignAttr->args.size() != 1 || !alignAttr->args[0].value) {
      diags_.report(DiagKind::BadAttributeArgument, alignAttr->range, "align", "align takes one byte count, e.g. align(128)");
    } else if (auto v = constInt(*alignAttr->args[0].value, "an alignment")) {
      if (!isPowerOfTwo(*v) || *v < 16 || *v > 4096)
        diags_.report(DiagKind::BadAttributeArgument, alignAttr->args[0].value->range, "align",
                      "shared arrays are aligned to a power of two in 16..4096 bytes, not " + std::to_string(*v));
      else explicitAlign = *v;
    }
  }
  int64_t swizzleAlign = alloc.swizzleBytes * 8;   // one swizzle atom: 8 rows of the swizzle span
  alloc.alignment = std::max<int64_t>({16, swizzleAlign, explicitAlign.value_or(16)});
  if (explicitAlign && *explicitAlign < swizzleAlign)
    diags_.report(DiagKind::BadAttributeArgument, alignAttr->args[0].value->range, "align",
                  "align(" + std::to_string(*explicitAlign) + ") is less than the " + std::to_string(swizzleAlign) +
                      " bytes that swizzle(" + std::to_string(alloc.swizzleBytes) + "B) needs");
  if (ok && alloc.swizzleBytes && s.type->isTensor() && !s.type->groups.empty()) {
    const TensorDim &inner = s.type->groups.back().back();
    int64_t rowBytes = inner.value.value_or(0) * s.type->element->sizeInBytes().value_or(0);
    const auto &innerGroup = s.type->groups.back();
    if (rowBytes > alloc.swizzleBytes && rowBytes % alloc.swizzleBytes == 0) {
      // Column blocks one span wide (docs/language.md "Shared layouts"): [rows, span] blocks on swizzle atoms.
      const int64_t rows = innerGroup.size() >= 2 ? innerGroup[innerGroup.size() - 2].value.value_or(0) : 0;
      if (innerGroup.size() < 2)
        diags_.report(DiagKind::SwizzleColumnBlocks, swizzleAttr->range, s.name,
                      "its rows of " + std::to_string(rowBytes) + " bytes exceed the " + std::to_string(alloc.swizzleBytes) +
                          "-byte span, and column blocks need a [rows, columns] tile as the innermost bracket group")
            .hint("declare it as [rows, columns], e.g. bf16[S][64, 128]");
      else if (rows % 8 != 0)
        diags_.report(DiagKind::SwizzleColumnBlocks, swizzleAttr->range, s.name,
                      "its rows of " + std::to_string(rowBytes) + " bytes are " + std::to_string(rowBytes / alloc.swizzleBytes) +
                          " column blocks of " + std::to_string(rows) + " rows, but a block needs a multiple of 8 rows")
            .hint("make the row count a multiple of 8 (a swizzle atom is 8 rows of the span)");
    } else if (rowBytes != alloc.swizzleBytes)
      diags_.report(DiagKind::BadAttributeArgument, swizzleAttr->range, "swizzle",
                    "swizzle(" + std::to_string(alloc.swizzleBytes) + "B) needs rows of a multiple of " +
                        std::to_string(alloc.swizzleBytes) + " bytes, but the innermost dimension of " + quote(s.name) +
                        " is " + inner.text + " x " + typeToString(s.type->element) + " = " + std::to_string(rowBytes) +
                        " bytes");
  }
  if (ok) {
    alloc.bytes = s.type->sizeInBytes().value_or(0);
    info_->shared.push_back(alloc);
  }
  declare(s);
}

void Sema::analyzeMBarrier(MBarrierStmt &s, const StmtContext &ctx) {
  checkDeclPlacement(s, s.range, "mbarrier", ctx);
  MBarrierInfo mi;
  mi.decl = &s;
  bool ok = true;
  if (s.count) {
    auto v = constInt(*s.count, "the number of mbarriers");
    if (v) adaptUntyped(*s.count, types_.i32());
    if (v && (*v < 1 || *v > 1024)) {
      diags_.report(DiagKind::BadDimension, s.count->range, text(*s.count),
                    "an mbarrier array holds 1..1024 barriers, not " + std::to_string(*v));
      v.reset();
    }
    if (!v) ok = false;
    else mi.count = *v;
    s.type = types_.mbarrierArray(v);
  } else {
    s.type = types_.mbarrier();
  }
  auto attrs = collectAttrs(s.attrs, {"arrivals"}, "mbarrier " + quote(s.name));
  if (auto it = attrs.find("arrivals"); it != attrs.end()) {
    Attr &a = *it->second;
    if (a.args.size() != 1 || !a.args[0].value) {
      diags_.report(DiagKind::BadAttributeArgument, a.range, "arrivals", "arrivals takes one count");
      ok = false;
    } else if (auto v = constInt(*a.args[0].value, "an arrival count")) {
      adaptUntyped(*a.args[0].value, types_.i32());
      if (*v < 1 || *v >= (1 << 20)) {
        diags_.report(DiagKind::BadAttributeArgument, a.args[0].value->range, "arrivals",
                      "the arrival count must be in 1..1048575, not " + std::to_string(*v));
        ok = false;
      } else {
        mi.arrivals = *v;
      }
    } else {
      ok = false;
    }
  } else {
    diags_.report(DiagKind::MissingAttribute, s.nameRange, "mbarrier " + quote(s.name), "arrivals")
        .hint("state how many arrivals complete a phase, e.g. mbarrier " + s.name + (s.count ? "[" + text(*s.count) + "]" : "") +
              " arrivals(1);");
    ok = false;
  }
  if (ok) info_->mbarriers.push_back(mi);
  mbarrierDecls_.push_back(&s);
  declare(s);
}

void Sema::analyzeBarrier(BarrierStmt &s, const StmtContext &ctx) {
  checkDeclPlacement(s, s.range, "named barrier", ctx);
  s.type = types_.namedBarrier();
  auto attrs = collectAttrs(s.attrs, {"id", "threads"}, "named barrier " + quote(s.name));
  NamedBarrierInfo nb;
  nb.decl = &s;
  bool ok = true;
  if (s.count) {   // barrier NAME[n]: n barriers with consecutive ids
    nb.isArray = true;
    auto n = constInt(*s.count, "a named barrier array size");
    if (n) adaptUntyped(*s.count, types_.i32());
    if (!n) {
      ok = false;
    } else if (*n < 1 || *n > 15) {
      diags_.report(DiagKind::BarrierArrayBadCount, s.count->range, s.name,
                    "the array holds 1..15 barriers (ids 1..15), not " + std::to_string(*n))
          .hint("one barrier per role instance: barrier " + s.name + "[2] id(1) threads(128);");
      ok = false;
    } else {
      nb.count = *n;
      s.type = types_.namedBarrierArray(*n);
    }
  }
  auto one = [&](const char *name, std::string_view what) -> std::optional<int64_t> {
    auto it = attrs.find(name);
    if (it == attrs.end()) {
      diags_.report(DiagKind::MissingAttribute, s.nameRange, "named barrier " + quote(s.name), name)
          .hint("e.g. barrier " + s.name + " id(1) threads(128);");
      return std::nullopt;
    }
    Attr &a = *it->second;
    if (a.args.size() != 1 || !a.args[0].value) {
      diags_.report(DiagKind::BadAttributeArgument, a.range, name, std::string(name) + " takes one value");
      return std::nullopt;
    }
    auto v = constInt(*a.args[0].value, what);
    if (v) adaptUntyped(*a.args[0].value, types_.i32());
    return v;
  };
  auto id = one("id", "a named barrier id");
  auto threads = one("threads", "a named barrier's thread count");
  if (id && nb.isArray && ok) {
    int64_t last = *id + nb.count - 1;
    if (*id < 1 || last > 15) {
      diags_.report(DiagKind::BarrierArrayBadCount, attrs["id"]->args[0].value->range, s.name,
                    "its " + std::to_string(nb.count) + " barriers take ids " + std::to_string(*id) + ".." +
                        std::to_string(last) + ", outside 1..15")
          .hint(*id < 1 ? std::string("barrier 0 is the one syncthreads uses; start at id(1)")
                        : "start at id(" + std::to_string(std::max<int64_t>(1, 16 - nb.count)) + ") or lower");
      ok = false;
    } else {
      for (const NamedBarrierInfo &other : info_->namedBarriers)
        if (other.id <= last && *id <= other.id + other.count - 1) {
          diags_.report(DiagKind::BarrierArrayBadCount, attrs["id"]->args[0].value->range, s.name,
                        "its ids " + std::to_string(*id) + ".." + std::to_string(last) + " overlap named barrier " +
                            quote(other.decl->name) + " (id" + (other.count > 1 ? "s " : " ") + std::to_string(other.id) +
                            (other.count > 1 ? ".." + std::to_string(other.id + other.count - 1) : "") + ")")
              .note(other.decl->nameRange, "named barrier " + quote(other.decl->name) + " is declared here");
          ok = false;
          break;
        }
      nb.id = *id;
    }
  } else if (id && nb.isArray) {
    ok = false;
  } else if (id) {
    if (*id < 1 || *id > 15) {
      auto d = diags_.report(DiagKind::BadAttributeArgument, attrs["id"]->args[0].value->range, "id",
                             "named barrier ids are 1..15, not " + std::to_string(*id));
      if (*id == 0) d.hint("barrier 0 is the one syncthreads uses");
      ok = false;
    } else {
      for (const NamedBarrierInfo &other : info_->namedBarriers)
        if (other.id <= *id && *id <= other.id + other.count - 1) {
          diags_.report(DiagKind::BadAttributeArgument, attrs["id"]->args[0].value->range, "id",
                        "id " + std::to_string(*id) + " is already used by named barrier " + quote(other.decl->name))
              .note(other.decl->nameRange, "named barrier " + quote(other.decl->name) + " is declared here");
          ok = false;
          break;
        }
      nb.id = *id;
    }
  } else {
    ok = false;
  }
  if (threads) {
    if (*threads < 32 || *threads % 32 != 0 || (info_->threads && *threads > info_->threads)) {
      diags_.report(DiagKind::BadAttributeArgument, attrs["threads"]->args[0].value->range, "threads",
                    "a named barrier's thread count is a multiple of 32 in 32.." +
                        std::to_string(info_->threads ? info_->threads : 1024) + ", not " + std::to_string(*threads));
      ok = false;
    } else {
      nb.threads = *threads;
    }
  } else {
    ok = false;
  }
  if (ok) info_->namedBarriers.push_back(nb);
  declare(s);
}

void Sema::layoutSharedMemory(Kernel &k) {
  int64_t offset = 0;
  int64_t maxAlign = 16;
  for (SharedAllocation &a : info_->shared) {
    offset = alignUp(offset, a.alignment);
    a.offset = offset;
    offset += a.bytes;
    maxAlign = std::max(maxAlign, a.alignment);
  }
  for (MBarrierInfo &m : info_->mbarriers) {
    offset = alignUp(offset, 8);
    m.offset = offset;
    offset += 8 * m.count;
  }
  info_->sharedBytes = offset;
  info_->sharedAlignment = maxAlign;
  if (!arch_) return;
  int64_t limit = maxSharedBytes(*arch_);
  if (offset > limit) {
    auto d = diags_.report(DiagKind::SharedMemoryLimit, k.nameRange, k.name, offset, archName(*arch_), limit);
    for (const SharedAllocation &a : info_->shared)
      d.note(a.decl->nameRange, "shared array " + quote(a.decl->name) + " takes " + std::to_string(a.bytes) + " bytes");
  }
}

// E0375: a shared array, mbarrier or named barrier that no name in the kernel resolved to (its uses inside
// inlined fns included: sema runs after inlining).  Not after errors: a statement that failed to type may be
// the one that would have named it.
void Sema::warnUnusedDeclarations(const KernelInfo &info) {
  if (diags_.hasErrors()) return;
  auto warn = [&](const Decl *d, const char *what, const std::string &costs) {
    if (!d || referenced_.count(d)) return;
    diags_.report(DiagKind::UnusedDeclaration, d->nameRange, what, d->name).hint("remove it: it takes " + costs);
  };
  for (const SharedAllocation &a : info.shared)
    warn(a.decl, "shared array", std::to_string(a.bytes) + " bytes of shared memory");
  for (const MBarrierInfo &m : info.mbarriers)
    warn(m.decl, "mbarrier", std::to_string(8 * m.count) + " bytes of shared memory");
  for (const NamedBarrierInfo &n : info.namedBarriers)
    warn(n.decl, "named barrier", n.count > 1 ? "barrier ids " + std::to_string(n.id) + ".." + std::to_string(n.id + n.count - 1)
                                               : "barrier id " + std::to_string(n.id));
}

} // namespace cake
