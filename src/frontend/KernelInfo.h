// Per-kernel facts sema establishes for the later stages (verify, cost, codegen): launch shape, roles with
// their warp ranges and register budgets, the shared-memory layout, barriers, TMA parameters and the
// compile-time parameter values.  Reachable from SemaResult::kernels (keyed by Kernel*).
//
// Every number here is a checked constant: when sema could not establish one (an error was reported),
// the field keeps its "unknown" value (0 / nullopt / empty) and SemaResult::ok is false.
#pragma once
#include "frontend/AST.h"
#include "support/Arch.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake {

struct RoleInfo {
  const RoleStmt *decl = nullptr;
  std::string name;
  int64_t instances = 1;            // role NAME[n]
  int64_t firstWarp = 0;            // warps [firstWarp, endWarp) over all instances
  int64_t endWarp = 0;
  std::optional<int64_t> regs;      // regs(r) -> setmaxnreg r
  bool rangeKnown = false;          // false when the range had errors
  int64_t warpsPerInstance() const { return instances > 0 ? (endWarp - firstWarp) / instances : 0; }
  int64_t threadsPerInstance() const { return warpsPerInstance() * 32; }
  // Each instance starts at a multiple of 4 warps and spans whole warpgroups (wgmma, setmaxnreg).
  bool warpgroupAligned() const {
    int64_t w = warpsPerInstance();
    return rangeKnown && w > 0 && w % 4 == 0 && firstWarp % 4 == 0;
  }
};

struct SharedAllocation {
  const SharedStmt *decl = nullptr;
  int64_t offset = 0;               // byte offset in the kernel's dynamic shared memory
  int64_t bytes = 0;
  int64_t alignment = 16;           // align(n), or the swizzle's requirement (128B -> 1024)
  int64_t swizzleBytes = 0;         // 0 = none, else 32 / 64 / 128
  // A `tmem` declaration: the shared allocation is the 4-byte slot tcgen05.alloc writes the tensor-memory
  // base address into; tmemColumns the columns it allocates (a power of two in 32..512).
  int64_t tmemColumns = 0;
};

struct MBarrierInfo {
  const MBarrierStmt *decl = nullptr;
  int64_t count = 1;                // number of barriers (mbarrier full[S])
  int64_t arrivals = 0;             // arrivals(n) per phase
  int64_t offset = 0;               // byte offset in shared memory (8 bytes each, 8-aligned)
};

struct NamedBarrierInfo {
  const BarrierStmt *decl = nullptr;
  int64_t id = 0;                   // 1..15; the first id of an array
  int64_t threads = 0;              // multiple of 32; per barrier of an array
  int64_t count = 1;                // barrier NAME[count]: ids id .. id + count - 1
  bool isArray = false;             // declared with [count] (then used as NAME[i])
};

struct TensorParamInfo {
  const Param *param = nullptr;
  bool tma = false;
  std::vector<int64_t> box;         // tma(box=[..]) in dimension order (outermost first)
  int64_t swizzleBytes = 0;         // tma(swizzle=..): 0 = none
  std::vector<const Expr *> strides;   // stride(..) as written; empty = contiguous row-major
  int64_t alignment = 0;            // align(n); 0 = not stated
};

struct KernelInfo {
  const Kernel *kernel = nullptr;
  std::map<std::string, int64_t> ctValues;        // after defaults and -D overrides
  std::map<std::string, std::string> ctTypes;     // type parameters: name -> scalar type name
  std::vector<const Expr *> grid;                 // grid(x[, y[, z]])
  int64_t threads = 0;                            // threads(n)
  int64_t warps() const { return threads / 32; }
  std::array<int64_t, 3> cluster = {1, 1, 1};     // cluster(x[, y[, z]])
  int64_t clusterCtas() const { return cluster[0] * cluster[1] * cluster[2]; }   // CTAs a cluster has
  bool hasCluster = false;
  std::vector<const Expr *> requirements;         // requires(..) conditions
  std::vector<RoleInfo> roles;
  std::vector<SharedAllocation> shared;
  std::vector<MBarrierInfo> mbarriers;
  std::vector<NamedBarrierInfo> namedBarriers;
  std::map<const Param *, TensorParamInfo> tensorParams;
  int64_t sharedBytes = 0;                        // total dynamic shared memory, alignment included
  int64_t sharedAlignment = 16;                   // largest alignment any allocation needs
  bool usesWgmma = false;
  bool usesTcgen05 = false;

  const RoleInfo *roleOf(const RoleStmt *r) const {
    for (const RoleInfo &ri : roles) if (ri.decl == r) return &ri;
    return nullptr;
  }
  const SharedAllocation *sharedOf(const SharedStmt *s) const {
    for (const SharedAllocation &a : shared) if (a.decl == s) return &a;
    return nullptr;
  }
  const MBarrierInfo *mbarrierOf(const MBarrierStmt *m) const {
    for (const MBarrierInfo &b : mbarriers) if (b.decl == m) return &b;
    return nullptr;
  }
  const NamedBarrierInfo *namedBarrierOf(const BarrierStmt *b) const {
    for (const NamedBarrierInfo &n : namedBarriers) if (n.decl == b) return &n;
    return nullptr;
  }
  const TensorParamInfo *tensorParamOf(const Param *p) const {
    auto it = tensorParams.find(p);
    return it == tensorParams.end() ? nullptr : &it->second;
  }
};

// Shared memory a block may use on each target (bytes of dynamic shared memory per block, opt-in max).
int64_t maxSharedBytes(Arch a);

} // namespace cake
