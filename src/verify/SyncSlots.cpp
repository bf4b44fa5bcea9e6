// SyncSlots: the sync model's slots (each mbarrier and ring stage of each CTA of a cluster, by name) and agents
// (each role instance of each CTA, and the warps outside roles) - SyncModel.h.
#include "verify/SyncModel.h"

#include "frontend/Types.h"

#include <algorithm>

namespace cake {

namespace {

std::string ctaPrefix(bool inCluster, int cta) { return inCluster ? "CTA " + std::to_string(cta) + ": " : ""; }

} // namespace

std::string BarrierSlot::name() const {
  std::string n = ctaPrefix(inCluster, cta) + (decl && decl->decl ? decl->decl->name : "?");
  if (decl && decl->count > 1) n += "[" + std::to_string(index) + "]";
  return n;
}

std::string StageSlot::name() const {
  std::string n = ctaPrefix(inCluster, cta) + (decl && decl->decl ? decl->decl->name : "?");
  if (!staged) return n;
  // the flat stage index as the index of each stage level: u[2][WG][..] stage 3 is u[1][1] for WG = 2
  const Type *t = decl->decl->type;
  std::vector<std::string> levels;
  int64_t rest = index;
  for (size_t g = stageLevels(t); g-- > 0;) {
    std::string group;
    for (size_t k = t->groups[g].size(); k-- > 0;) {
      const int64_t extent = std::max<int64_t>(t->groups[g][k].value.value_or(1), 1);
      group = std::to_string(rest % extent) + (group.empty() ? "" : ", " + group);
      rest /= extent;
    }
    levels.push_back("[" + group + "]");
  }
  for (size_t g = levels.size(); g-- > 0;) n += levels[g];
  return n;
}

size_t stageLevels(const Type *t) { return t && t->groups.size() > 1 ? t->groups.size() - 1 : 0; }

int SlotTable::barrierSlot(int cta, const MBarrierInfo *decl, int64_t index) const {
  for (size_t i = 0; i < barriers.size(); ++i)
    if (barriers[i].cta == cta && barriers[i].decl == decl && barriers[i].index == index) return static_cast<int>(i);
  return -1;
}

int SlotTable::stageSlot(int cta, const SharedAllocation *decl, int64_t index) const {
  for (size_t i = 0; i < stages.size(); ++i)
    if (stages[i].cta == cta && stages[i].decl == decl && stages[i].index == index) return static_cast<int>(i);
  return -1;
}

SlotTable buildSlots(const KernelInfo &info) {
  SlotTable t;
  int64_t ctas = info.clusterCtas();
  bool cluster = ctas > 1;
  for (int64_t c = 0; c < ctas; ++c) {
    for (const MBarrierInfo &mb : info.mbarriers)
      for (int64_t i = 0; i < std::max<int64_t>(mb.count, 1); ++i)
        t.barriers.push_back({static_cast<int>(c), &mb, i, cluster});
    for (const SharedAllocation &sa : info.shared) {
      // Every bracket group but the innermost (the tile) numbers stages, row-major: a[S][BM, BK] has S,
      // u[2][WG][BT, BV] 2 WG (u[s][w] is stage s WG + w).
      int64_t stages = 1;
      const bool staged = sa.decl && stageLevels(sa.decl->type) > 0;
      if (staged)
        for (size_t g = 0; g < stageLevels(sa.decl->type); ++g)
          for (const TensorDim &d : sa.decl->type->groups[g]) stages *= d.value.value_or(1);
      for (int64_t i = 0; i < stages; ++i) t.stages.push_back({static_cast<int>(c), &sa, i, staged, cluster});
    }
  }
  return t;
}

std::vector<SyncAgent> buildAgents(const KernelInfo &info) {
  std::vector<SyncAgent> agents;
  int64_t ctas = info.clusterCtas();
  int64_t warps = info.warps();
  for (int64_t c = 0; c < ctas; ++c) {
    std::vector<bool> covered(static_cast<size_t>(std::max<int64_t>(warps, 0)), false);
    for (const RoleInfo &r : info.roles) {
      if (!r.rangeKnown || r.instances <= 0) continue;
      int64_t wpi = r.warpsPerInstance();
      for (int64_t i = 0; i < r.instances; ++i) {
        SyncAgent a;
        a.cta = static_cast<int>(c);
        a.role = &r;
        a.instance = i;
        a.name = ctaPrefix(ctas > 1, a.cta) + r.name + (r.instances > 1 ? "[" + std::to_string(i) + "]" : "");
        for (int64_t w = r.firstWarp + i * wpi; w < r.firstWarp + (i + 1) * wpi && w < warps; ++w) {
          covered[static_cast<size_t>(w)] = true;
          for (int64_t l = 0; l < 32; ++l) a.threads.push_back(w * 32 + l);
        }
        agents.push_back(std::move(a));
      }
    }
    SyncAgent rest;
    rest.cta = static_cast<int>(c);
    rest.name = ctaPrefix(ctas > 1, rest.cta) + (info.roles.empty() ? "the block" : "the warps outside roles");
    for (int64_t w = 0; w < warps; ++w)
      if (!covered[static_cast<size_t>(w)])
        for (int64_t l = 0; l < 32; ++l) rest.threads.push_back(w * 32 + l);
    if (!rest.threads.empty()) agents.push_back(std::move(rest));
  }
  return agents;
}

} // namespace cake
