// The CAKE interpreter: runs a kernel of the typed AST on the CPU, exactly as docs/language.md defines it.
//
// Execution model
//   launch   The request's tensors fix the shape variables (or --shape does); every dimension, stride,
//            `requires` condition and the grid are evaluated from them (ConstEval with the shape variables
//            and scalar arguments bound), as the runtime does before a launch (docs/manifest.md).  A global
//            tensor is a flat element image with the manifest's dims and strides; an argument arrives dense
//            row-major and is scattered into it, and gathered back after the run.
//   blocks   run one after another, in grid order (x fastest).  Blocks cannot synchronise with each other
//            in CAKE (no grid barrier), so any order is a legal schedule.  The blocks of a cluster run
//            together under one scheduler (cluster.sync, arrive cta(r), multicast TMA loads reach peers).
//            Each block gets fresh shared (and tmem) arrays filled with 0xff bytes (NaN for floats, -1 for
//            integers), so that a read of never-written shared memory shows in the results instead of a lucky 0.
//   warps    Each warp executes in lock-step over its 32 lanes with an active mask (WarpExecutor.h):
//            values are per-lane arrays, `if`/`for` split the mask, so shuffles, warp reductions and row
//            reductions see all lanes at once.  Warps are cooperative tasks (WarpScheduler.h): one thread
//            each, and a baton passed only at blocking points (syncthreads, named barriers; mbarrier and
//            async-copy waits later), so warp-specialised kernels progress whichever warp waits first.  A
//            seeded scheduler picks the next runnable warp: seed 0 the lowest, any other seed a random one
//            (the hook for a schedule explorer).  No runnable warp while some are unfinished is a deadlock
//            (E0902, a note at each waiting warp's statement).
//   numerics Register values keep the exact value of their type (Numerics.h): f16/bf16 rounded to nearest
//            even on every conversion, operation and store, f32 arithmetic in f32, integers wrap.  Math
//            intrinsics compute in f32 (EvalCall.cpp lists the precision of each).
//   errors   Out-of-bounds accesses (every index of every global/shared/register access, per lane), a
//            collective executed by part of a warp, integer division by zero, a failed `requires`, a
//            runaway run (step limit), mbarrier misuse (E0910, E0911) are located diagnostics that stop
//            the run; a construct the interpreter does not execute yet (f8 types, cluster.arrive /
//            cluster.wait) is E0903, never a silent wrong result.
#include "interp/Interpreter.h"

#include "frontend/ConstEval.h"
#include "frontend/Builtins.h"
#include "frontend/Ops.h"
#include "interp/WarpExecutor.h"

#include <cstring>
#include <functional>
#include <memory>
#include <optional>

namespace cake::interp {

int64_t HostTensor::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

HostTensor HostTensor::zeros(ScalarKind dtype, std::vector<int64_t> dims) {
  HostTensor t;
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.bytes.assign(size_t(t.elements()) * scalarBytes(dtype), 0);
  return t;
}

HostTensor HostTensor::fromDoubles(ScalarKind dtype, std::vector<int64_t> dims, const std::vector<double> &values) {
  HostTensor t = zeros(dtype, std::move(dims));
  size_t eb = scalarBytes(dtype);
  for (size_t i = 0; i < values.size() && i < size_t(t.elements()); ++i) {
    Scalar s;
    s.f = values[i];
    storeScalar(t.bytes.data() + i * eb, dtype, convertScalar(s, ScalarKind::F32, dtype));
  }
  return t;
}

double HostTensor::at(int64_t i) const {
  Scalar s = loadScalar(bytes.data() + size_t(i) * scalarBytes(dtype), dtype);
  return isFloatScalar(dtype) ? s.f : double(s.i);
}

std::vector<double> HostTensor::toDoubles() const {
  std::vector<double> out(static_cast<size_t>(elements()));
  for (int64_t i = 0; i < elements(); ++i) out[size_t(i)] = at(i);
  return out;
}

namespace {

constexpr uint64_t kMaxTensorBytes = 1ull << 30;   // per global tensor (E0907 past it)

struct Setup {
  const Kernel &kernel;
  const KernelInfo &info;
  const RunRequest &request;
  DiagnosticEngine &diags;
  LaunchState &launch;
  std::map<const Decl *, int64_t> shapes;   // shape variable values

  bool argError(const std::string &param, const std::string &why, SourceRange where) {
    diags.report(DiagKind::InterpBadArgument, where, param, why);
    return false;
  }

  ConstEvaluator evaluator() const {
    ConstEvalOptions o;
    o.integerCasts = true;
    o.bind = [this](const Expr &e) -> std::optional<int64_t> {
      auto *n = dynCast<NameExpr>(&e);
      if (!n || !n->decl) return std::nullopt;
      if (auto it = shapes.find(n->decl); it != shapes.end()) return it->second;
      if (auto it = launch.scalarArgs.find(n->decl); it != launch.scalarArgs.end()) return it->second.i;
      if (n->decl->declKind == DeclKind::Builtin && n->name == "num_sms") return request.numSms;
      return std::nullopt;
    };
    return ConstEvaluator(o);
  }

  // Step 1: shape variables from --shape and from the dims of the given tensors.
  bool bindShapes() {
    bool ok = true;
    for (const Ptr<ShapeVar> &sv : kernel.shapeVars)
      if (auto it = request.shape.find(sv->name); it != request.shape.end()) shapes[sv.get()] = it->second;
    for (auto &[name, _] : request.shape) {
      bool known = false;
      for (const Ptr<ShapeVar> &sv : kernel.shapeVars) known = known || sv->name == name;
      if (!known) ok = argError(name, "the kernel has no shape variable of this name", kernel.nameRange);
    }
    for (auto &[name, t] : request.tensors) {
      const Param *p = nullptr;
      for (const Ptr<Param> &q : kernel.params) if (q->name == name) p = q.get();
      if (!p || !p->type || !p->type->isTensor()) {
        ok = argError(name, "the kernel has no tensor parameter of this name", kernel.nameRange);
        continue;
      }
      std::vector<TensorDim> dims = p->type->allDims();
      if (dims.size() != t.dims.size()) {
        ok = argError(name, "rank " + std::to_string(t.dims.size()) + " given, " + std::to_string(dims.size()) + " declared", p->nameRange);
        continue;
      }
      if (t.dtype != p->type->elementScalar() || (p->type->element && p->type->element->isVector())) {
        ok = argError(name, "element type " + std::string(scalarName(t.dtype)) + " given, " + typeToString(p->type->element) + " declared", p->nameRange);
        continue;
      }
      for (size_t d = 0; d < dims.size(); ++d) {
        auto *n = dynCast<NameExpr>(dims[d].expr);
        if (!n || !n->decl || n->decl->declKind != DeclKind::ShapeVar) continue;
        auto [it, fresh] = shapes.emplace(n->decl, t.dims[d]);
        if (!fresh && it->second != t.dims[d])
          ok = argError(name, "dimension " + std::to_string(d) + " is " + std::to_string(t.dims[d]) + " but " + n->name +
                                  " = " + std::to_string(it->second), p->nameRange);
      }
    }
    for (const Ptr<ShapeVar> &sv : kernel.shapeVars) {
      auto it = shapes.find(sv.get());
      if (it == shapes.end()) {
        diags.report(DiagKind::InterpMissingShape, sv->nameRange, sv->name).hint("give it with --shape " + sv->name + "=VALUE");
        ok = false;
      } else if (it->second < 0 || it->second > INT32_MAX) {
        ok = argError(sv->name, "the shape variable must be in 0..2147483647", sv->nameRange);
      } else {
        launch.scalarArgs[sv.get()].i = it->second;
      }
    }
    return ok;
  }

  // Step 2: scalar parameters.
  bool bindScalars() {
    bool ok = true;
    for (auto &[name, _] : request.scalars) {
      bool known = false;
      for (const Ptr<Param> &p : kernel.params) known = known || (p->name == name && p->type && p->type->isScalar());
      if (!known) ok = argError(name, "the kernel has no scalar parameter of this name", kernel.nameRange);
    }
    for (const Ptr<Param> &p : kernel.params) {
      if (!p->type || !p->type->isScalar()) continue;
      auto it = request.scalars.find(p->name);
      if (it == request.scalars.end()) {
        ok = argError(p->name, "no value given for this scalar parameter", p->nameRange);
        continue;
      }
      Scalar s;
      s.f = it->second;
      ScalarKind k = p->type->scalar;
      launch.scalarArgs[p.get()] = isFloatScalar(k) ? convertScalar(s, ScalarKind::F32, k) : Scalar{int64_t(it->second), 0};
    }
    return ok;
  }

  // Step 3: global tensors with their dims and strides; inputs scattered in.
  bool allocateTensors() {
    ConstEvaluator ev = evaluator();
    for (const Ptr<Param> &p : kernel.params) {
      if (!p->type || !p->type->isTensor()) continue;
      if (!p->type->element || !p->type->element->isScalar() || isF8Scalar(p->type->elementScalar())) {
        diags.report(DiagKind::InterpUnsupported, p->nameRange, "tensors of " + typeToString(p->type->element));
        return false;
      }
      GlobalTensor g;
      g.param = p.get();
      g.elem = p->type->elementScalar();
      for (const TensorDim &d : p->type->allDims()) {
        ConstResult r = d.value ? ConstResult{ConstResult::Ok, *d.value, nullptr} : ev.evaluate(*d.expr);
        if (!r.ok()) return argError(p->name, "cannot evaluate dimension '" + d.text + "'", p->nameRange);
        g.dims.push_back(r.value);
      }
      const TensorParamInfo *tp = info.tensorParamOf(p.get());
      g.strides.assign(g.dims.size(), 1);
      if (tp && !tp->strides.empty()) {
        for (size_t i = 0; i < tp->strides.size() && i < g.dims.size(); ++i) {
          ConstResult r = ev.evaluate(*tp->strides[i]);
          if (!r.ok()) return argError(p->name, "cannot evaluate stride " + std::to_string(i), p->nameRange);
          g.strides[i] = r.value;
        }
      } else {
        for (size_t i = g.dims.size(); i-- > 1;) g.strides[i - 1] = g.strides[i] * g.dims[i];
      }
      int64_t last = 0;
      bool empty = false, tooLarge = false;
      for (size_t i = 0; i < g.dims.size(); ++i) {
        int64_t span = 0;
        if (g.dims[i] <= 0) empty = true;
        else if (g.strides[i] < 0 || __builtin_mul_overflow(g.dims[i] - 1, g.strides[i], &span) ||
                 __builtin_add_overflow(last, span, &last))
          tooLarge = true;
      }
      size_t eb = scalarBytes(g.elem);
      if (tooLarge || (!empty && uint64_t(last) + 1 > kMaxTensorBytes / eb))
        return argError(p->name, "the tensor needs more than " + std::to_string(kMaxTensorBytes >> 30) +
                                     " GiB (the interpreter's limit per tensor); run at a smaller shape", p->nameRange);
      g.bytes.assign(empty ? 0 : size_t(last + 1) * eb, 0);
      if (auto it = request.tensors.find(p->name); it != request.tensors.end() && !empty)
        forEachElement(g, [&](int64_t dense, int64_t strided) {
          std::memcpy(g.bytes.data() + strided * eb, it->second.bytes.data() + dense * eb, eb);
        });
      launch.globals.emplace(p.get(), std::move(g));
    }
    return true;
  }

  static void forEachElement(const GlobalTensor &g, const std::function<void(int64_t, int64_t)> &f) {
    int64_t total = 1;
    for (int64_t d : g.dims) total *= d;
    std::vector<int64_t> idx(g.dims.size(), 0);
    for (int64_t dense = 0; dense < total; ++dense) {
      int64_t strided = 0;
      for (size_t i = 0; i < idx.size(); ++i) strided += idx[i] * g.strides[i];
      f(dense, strided);
      for (size_t i = idx.size(); i-- > 0;) {
        if (++idx[i] < g.dims[i]) break;
        idx[i] = 0;
      }
    }
  }

  // Step 4: requires and the grid.
  bool checkRequiresAndGrid() {
    ConstEvaluator ev = evaluator();
    bool ok = true;
    for (const Expr *r : info.requirements) {
      ConstResult v = ev.evaluate(*r);
      if (v.ok() && v.value == 0) {
        std::string_view text = diags.sources().text(r->range.begin.file).substr(r->range.begin.offset, r->range.end - r->range.begin.offset);
        diags.report(DiagKind::InterpRequiresFailed, r->range, std::string(text));
        ok = false;
      }
    }
    for (size_t i = 0; i < info.grid.size() && i < 3; ++i) {
      ConstResult v = ev.evaluate(*info.grid[i]);
      if (!v.ok() || v.value < 0) {
        diags.report(DiagKind::InterpBadArgument, info.grid[i]->range, "grid", "the grid dimension is not a non-negative integer for these arguments");
        return false;
      }
      launch.grid[i] = v.value;
    }
    return ok;
  }
};

// Whether a warp of the kernel can block: any barrier operation anywhere in the body.
bool mayBlock(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Block:
    for (const Ptr<Stmt> &c : cast<BlockStmt>(&s)->stmts)
      if (mayBlock(*c)) return true;
    return false;
  case StmtKind::Role: return mayBlock(*cast<RoleStmt>(&s)->body);
  case StmtKind::For: return mayBlock(*cast<ForStmt>(&s)->body);
  case StmtKind::Elect: return mayBlock(*cast<ElectStmt>(&s)->body);
  case StmtKind::If: {
    auto *i = cast<IfStmt>(&s);
    return mayBlock(*i->thenBody) || (i->elseBody && mayBlock(*i->elseBody));
  }
  case StmtKind::Op: {
    const OpInfo *op = cast<OpStmt>(&s)->op;
    return !op || op->id == OpId::Syncthreads || op->id == OpId::Sync || op->id == OpId::Arrive || op->id == OpId::Wait ||
           op->id == OpId::ClusterSync;
  }
  default: return false;
  }
}

void allocateShared(const KernelInfo &info, BlockState &block) {
  for (const SharedAllocation &a : info.shared) {
    SharedArray s;
    s.decl = a.decl;
    s.elem = a.decl->type->elementScalar();
    for (const TensorDim &d : a.decl->type->allDims()) s.dims.push_back(d.value.value_or(1));
    s.layout.cols = s.dims.empty() ? 1 : s.dims.back();
    s.layout.rows = s.dims.size() >= 2 ? s.dims[s.dims.size() - 2] : 1;
    s.layout.elemBytes = scalarBytes(s.elem);
    s.layout.span = a.swizzleBytes;
    int64_t n = 1;
    for (int64_t d : s.dims) n *= d;
    s.bytes.assign(size_t(std::max<int64_t>(a.bytes, n * s.layout.elemBytes)), 0xff);
    block.shared.emplace(a.decl, std::move(s));
  }
  for (const MBarrierInfo &m : info.mbarriers) block.mbarriers[m.decl].assign(size_t(std::max<int64_t>(m.count, 1)), MBarrierState{});
  block.cpCommits.assign(size_t(info.threads), 0);
  block.bulkCommits.assign(size_t(info.threads), 0);
}

} // namespace

RunResult runKernel(const Kernel &kernel, const SemaResult &sema, const RunRequest &request, DiagnosticEngine &diags) {
  RunResult result;
  const KernelInfo *info = sema.kernelInfo(&kernel);
  if (!info) CAKE_INTERNAL_ERROR("interpreter: a kernel without KernelInfo");
  LaunchState launch;
  launch.kernel = &kernel;
  launch.info = info;
  launch.diags = &diags;
  launch.numSms = request.numSms;
  launch.maxSteps = request.maxSteps;
  Setup setup{kernel, *info, request, diags, launch, {}};
  if (!setup.bindShapes() || !setup.bindScalars() || !setup.allocateTensors() || !setup.checkRequiresAndGrid()) return result;
  if (request.dryRun) {
    result.ok = true;
    return result;
  }
  const std::array<int64_t, 3> cl = info->hasCluster ? info->cluster : std::array<int64_t, 3>{1, 1, 1};
  for (int d = 0; d < 3; ++d)
    if (cl[d] <= 0 || launch.grid[d] % cl[d] != 0) {
      diags.report(DiagKind::InterpBadArgument, kernel.nameRange, "grid",
                   "the grid is not a whole number of clusters for these arguments (the launch would fail)");
      return result;
    }

  // The blocks of a cluster run together under one scheduler (they can reach each other's shared memory
  // and barriers); clusters, like blocks without one, run one after another in grid order.
  const int warps = int(info->warps());
  const int clusterBlocks = int(cl[0] * cl[1] * cl[2]);
  const bool blocking = mayBlock(*kernel.body);
  for (int64_t z = 0; z < launch.grid[2]; z += cl[2])
    for (int64_t y = 0; y < launch.grid[1]; y += cl[1])
      for (int64_t x = 0; x < launch.grid[0]; x += cl[0]) {
        std::vector<std::unique_ptr<BlockState>> blocks;
        std::vector<BlockState *> members;
        WarpScheduler scheduler(warps * clusterBlocks, request.seed, warps);
        AsyncQueue async;
        async.scheduler = &scheduler;
        async.seed = request.seed;
        std::optional<RaceDetector> races;
        if (request.checkRaces) {
          races.emplace(warps * clusterBlocks);
          async.races = &*races;
          scheduler.onBarrier = [&races](const std::vector<int> &arrived, const std::vector<int> &released) {
            races->barrier(arrived, released);
          };
        }
        for (int r = 0; r < clusterBlocks; ++r) {
          auto block = std::make_unique<BlockState>();
          block->clusterIndex = {r % cl[0], (r / cl[0]) % cl[1], r / (cl[0] * cl[1])};
          block->index = {x + block->clusterIndex[0], y + block->clusterIndex[1], z + block->clusterIndex[2]};
          block->rank = r;
          block->firstWarp = r * warps;
          block->scheduler = &scheduler;
          block->async = &async;
          block->races = races ? &*races : nullptr;
          block->cluster = &members;
          allocateShared(*info, *block);
          members.push_back(block.get());
          blocks.push_back(std::move(block));
        }
        scheduler.progress = [&async](bool force) { return async.progress(force); };
        WarpScheduler::Outcome out = scheduler.run([&](int w) {
          WarpExecutor exec(launch, *members[size_t(w / warps)], w % warps);
          exec.run();
        }, blocking || clusterBlocks > 1);
        if (out.ok) async.drain();   // copies still in flight complete before the blocks' memory goes away
        if (out.ok && races && races->finding) {
          const RaceFinding &f = *races->finding;
          DiagBuilder d = diags.reportArgs(f.kind, f.at, f.args);
          for (const auto &[at, text] : f.notes) d.note(at, text);
          d.note(kernel.nameRange, "in block (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")" +
                                       (clusterBlocks > 1 ? " and its cluster" : "") + " of kernel '" + kernel.name + "'");
          out.ok = false;
        }
        if (out.deadlock) {
          DiagBuilder d = diags.report(DiagKind::InterpDeadlock, kernel.nameRange,
                                       "block (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")" +
                                           (clusterBlocks > 1 ? " and its cluster" : ""));
          for (const WarpScheduler::Blocked &b : out.blocked)
            d.note(b.at ? b.at->range : kernel.nameRange,
                   (clusterBlocks > 1 ? "block rank " + std::to_string(b.warp / warps) + ", " : std::string()) + "warp " +
                       std::to_string(b.warp % warps) + " waits here (" + b.what + ")");
        }
        if (!out.ok) {
          result.steps = launch.steps;
          return result;
        }
      }

  for (auto &[param, g] : launch.globals) {
    HostTensor t = HostTensor::zeros(g.elem, g.dims);
    size_t eb = scalarBytes(g.elem);
    if (!t.bytes.empty())
      Setup::forEachElement(g, [&](int64_t dense, int64_t strided) {
        std::memcpy(t.bytes.data() + dense * eb, g.bytes.data() + strided * eb, eb);
      });
    result.tensors.emplace(param->name, std::move(t));
  }
  result.ok = true;
  result.steps = launch.steps;
  return result;
}

} // namespace cake::interp
