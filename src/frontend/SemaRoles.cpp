// Sema, roles: warp specialisation.
//
// `role NAME[n] = warpgroups(a..b) regs(r) { ... }` places n instances of NAME on the warps 4a..4b
// (warp(..)/warps(..) count single warps).  Per role we check, in this order:
//   - placement: directly in the kernel body (E0407);
//   - range: constant, non-empty, inside threads(n)/32 warps (E0405); n divides it evenly (E0406);
//   - regs(r): setmaxnreg exists on sm_90a/sm_100a (E0402), r is a multiple of 8 in 24..256 (E0410), and
//     the role is made of whole aligned warpgroups (E0404);
// and, once every role of the kernel is known (checkRoles):
//   - roles are pairwise disjoint (E0403, with a note at the other role);
//   - the register budgets fit the 64K-entry register file: sum over roles of warps * 32 * regs (E0410).
// The facts land in KernelInfo::roles for verify/cost/codegen.
#include "frontend/SemaImpl.h"

namespace cake {

namespace {
std::string warpRange(int64_t first, int64_t end) { return std::to_string(first) + ".." + std::to_string(end); }
constexpr int64_t kRegisterFile = 64 * 1024;
} // namespace

const RoleInfo *Sema::currentRoleInfo(const StmtContext &ctx) const {
  if (!ctx.role) return nullptr;
  auto it = roleIndex_.find(ctx.role);
  return it == roleIndex_.end() ? nullptr : &info_->roles[it->second];
}

void Sema::analyzeRole(RoleStmt &r, const StmtContext &ctx) {
  bool placed = ctx.depth == 0 && !ctx.role;
  if (!placed) {
    auto d = diags_.report(DiagKind::RoleNotAtKernelScope, r.nameRange, r.name);
    if (ctx.role) d.note(ctx.role->nameRange, "inside role " + quote(ctx.role->name) + " declared here");
  }
  r.type = types_.role();
  declare(r);

  RoleInfo ri;
  ri.decl = &r;
  ri.name = r.name;
  bool ok = placed;
  if (r.instances) {
    auto n = constInt(*r.instances, "a role's instance count");
    if (n) adaptUntyped(*r.instances, types_.i32());
    if (n && (*n < 1 || *n > 32)) {
      diags_.report(DiagKind::RoleSplit, r.instances->range, r.name, *n, "a warp range")
          .hint("the instance count is 1..32");
      n.reset();
    }
    if (n) ri.instances = *n;
    else ok = false;
  }
  bool group = r.unit == RoleUnit::Warpgroup;
  std::string unitName = group ? (r.pluralSpelling ? "warpgroups" : "warpgroup") : (r.pluralSpelling ? "warps" : "warp");
  std::optional<int64_t> first, last;
  if (r.first) {
    first = constInt(*r.first, std::string("a role's first ") + (group ? "warpgroup" : "warp"));
    if (first) adaptUntyped(*r.first, types_.i32());
  }
  if (r.last) {
    last = constInt(*r.last, std::string("a role's end ") + (group ? "warpgroup" : "warp"));
    if (last) adaptUntyped(*r.last, types_.i32());
  } else if (first) {
    last = *first + 1;
  }
  int64_t unit = group ? 4 : 1;
  if (first && last) {
    if (*first < 0 || *last <= *first || *last > 1024) {
      diags_.report(DiagKind::BadAttributeArgument, r.first->range, unitName,
                    "the range " + std::to_string(*first) + ".." + std::to_string(*last) +
                        " is empty or out of range (ranges exclude their upper end)");
      ok = false;
    } else {
      ri.firstWarp = *first * unit;
      ri.endWarp = *last * unit;
      int64_t warps = info_->warps();
      if (info_->threads > 0 && ri.endWarp > warps) {
        diags_.report(DiagKind::RoleOutOfRange, r.nameRange, r.name, warpRange(ri.firstWarp, ri.endWarp), warps)
            .hint("threads(" + std::to_string(info_->threads) + ") gives the block " + std::to_string(warps) + " warps (" +
                  std::to_string(warps / 4) + " warpgroups)");
        ok = false;
      }
      int64_t units = *last - *first;
      if (ri.instances > 0 && units % ri.instances != 0) {
        diags_.report(DiagKind::RoleSplit, r.instances ? r.instances->range : r.nameRange, r.name, ri.instances,
                      unitName + " " + std::to_string(*first) + ".." + std::to_string(*last) + " (" + std::to_string(units) +
                          " " + (group ? "warpgroups" : "warps") + ")");
        ok = false;
      }
    }
  } else {
    ok = false;
  }
  ri.rangeKnown = ok;

  auto attrs = collectAttrs(r.attrs, {"regs"}, "role " + quote(r.name));
  if (auto it = attrs.find("regs"); it != attrs.end()) {
    Attr &a = *it->second;
    checkArch(archBit(Arch::SM90a) | archBit(Arch::SM100a), "'regs' (setmaxnreg)", a.nameRange);
    if (a.args.size() != 1 || !a.args[0].value) {
      diags_.report(DiagKind::BadAttributeArgument, a.range, "regs", "regs takes one register count, e.g. regs(232)");
    } else if (auto v = constInt(*a.args[0].value, "a register budget")) {
      adaptUntyped(*a.args[0].value, types_.i32());
      if (*v < 24 || *v > 256 || *v % 8 != 0) {
        diags_.report(DiagKind::RegisterBudget, a.args[0].value->range, *v, "setmaxnreg takes a multiple of 8 in 24..256");
      } else {
        ri.regs = *v;
        if (ri.rangeKnown && !ri.warpgroupAligned())
          diags_.report(DiagKind::RoleMisaligned, a.nameRange, "'regs' (setmaxnreg)", r.name,
                        warpRange(ri.firstWarp, ri.endWarp))
              .hint("setmaxnreg applies to whole warpgroups: place the role with warpgroup(..)/warpgroups(..)");
      }
    }
  }

  if (placed) {
    roleIndex_[&r] = info_->roles.size();
    info_->roles.push_back(ri);
  }
  if (r.body) {
    ScopeGuard guard(*this, ScopeKind::Block);
    StmtContext inner = ctx;
    ++inner.depth;
    inner.role = &r;
    const RoleStmt *saved = currentRole_;
    currentRole_ = &r;
    analyzeBlock(*r.body, inner, /*newScope=*/false);
    currentRole_ = saved;
  }
}

void Sema::checkRoles(Kernel &k) {
  std::vector<RoleInfo> &roles = info_->roles;
  for (size_t j = 0; j < roles.size(); ++j) {
    if (!roles[j].rangeKnown) continue;
    for (size_t i = 0; i < j; ++i) {
      if (!roles[i].rangeKnown) continue;
      int64_t lo = std::max(roles[i].firstWarp, roles[j].firstWarp);
      int64_t hi = std::min(roles[i].endWarp, roles[j].endWarp);
      if (lo < hi) {
        diags_.report(DiagKind::RoleOverlap, roles[j].decl->nameRange, roles[j].name, roles[i].name, lo)
            .note(roles[i].decl->nameRange,
                  "role " + quote(roles[i].name) + " covers warps " + warpRange(roles[i].firstWarp, roles[i].endWarp));
        break;
      }
    }
  }
  int64_t total = 0;
  for (const RoleInfo &r : roles) {
    if (!r.rangeKnown || !r.regs) continue;
    total += (r.endWarp - r.firstWarp) * 32 * *r.regs;
    if (total > kRegisterFile) {
      auto d = diags_.report(DiagKind::RegisterBudget, r.decl->nameRange, *r.regs,
                             "the roles' budgets need " + std::to_string(total) +
                                 " registers per block (warps x 32 x regs), more than the 65536 of the register file");
      for (const RoleInfo &o : roles)
        if (&o != &r && o.rangeKnown && o.regs)
          d.note(o.decl->nameRange, "role " + quote(o.name) + ": " + std::to_string(o.endWarp - o.firstWarp) + " warps x 32 x " +
                                        std::to_string(*o.regs));
      break;
    }
  }
}

} // namespace cake
