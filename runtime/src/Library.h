// A loaded kernel library (docs/library.md): the variants of one operation (each a cubin + launch manifest)
// and the dispatch table that picks one of them by shape.
//
// `cakec library build SPEC -o DIR` writes DIR/library.json (format `cake-library`) beside the variants'
// cubins and manifests.  loadLibrary() reads it, loads every variant's module, checks that the variants share
// one signature (the same parameters, so one argument list fits all of them), and compiles every guard into an
// ExprProgram over the library's shape variables.  select() then walks the table in order and returns the
// first entry whose variant runs on the target arch and whose guard holds: a few nanoseconds per entry, no
// allocation, no lock.  explain() walks the same table and says, for every entry before the chosen one, why
// it was passed over (the first false conjunct of its guard and the values of the names it uses).
// A variant may launch several kernels in order, with workspace tensors the caller provides (VariantParams.h):
// workspaceLayout() sizes them at a shape, launchVariant() binds and launches each kernel.
#pragma once
#include "ExprProgram.h"
#include "Module.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace cake::rt {

constexpr int kLibraryVersion = 1;
constexpr std::string_view kLibraryFormat = "cake-library";
constexpr size_t kMaxLibraryEntries = 4096;

// Where a shape variable's value comes from at dispatch: dim `dim` of tensor argument `param`, or (param < 0)
// only from the caller's explicit values (cake_launch_options.shape_vars).
struct LibraryShapeVar {
  std::string name;
  int param = -1;
  int dim = -1;
};

// A kernel a variant launches, and where each of its parameters comes from: args[p] = i >= 0: argument i of
// the call; -1 - w: workspace w.
struct LibraryStep {
  const cake_kernel *kernel = nullptr;
  std::vector<int> args;
};

// A tensor the runtime's caller provides per call beyond the arguments: dims evaluated at the call's shape
// (slots: the library's shape variables, then the compile-time parameters of the kernel declaring it).
struct LibraryWorkspace {
  std::string name;
  cake_dtype dtype = CAKE_DTYPE_INVALID;
  int64_t align = 1;
  std::vector<ExprProgram> dims;
  std::vector<int64_t> ctValues;
};

struct LibraryVariant {
  std::string name;
  std::string arch;   // the variant's target, from its manifest
  std::unique_ptr<cake_module> module;
  std::vector<LibraryStep> steps;        // every kernel it launches, in order (at least one)
  std::vector<LibraryWorkspace> workspace;
};

// The workspace of one call: each tensor's dims and byte offset in one buffer (256-byte aligned pieces).
struct WorkspaceLayout {
  std::vector<std::vector<int64_t>> dims;
  std::vector<size_t> offsets;
  size_t bytes = 0;
};

struct LibraryEntry {
  size_t variant = 0;      // index into variants
  bool fallback = false;   // the last entry: accepts every shape (its guard is `true`)
  Expr guard;
  ExprProgram program;
  std::vector<Expr> conjuncts;   // the guard's top-level `&&` operands, for explain()
  std::vector<ExprProgram> conjunctPrograms;
  std::string loc;   // "spec.json:12:7" of the entry in the build's spec, may be empty
};

class LibraryState {
public:
  std::string name;
  std::string origin;   // the library.json path, for messages
  std::vector<LibraryShapeVar> shapeVars;
  std::vector<std::string> shapeVarNames;
  Expr domain;   // the shapes the library serves (may be empty: every shape)
  ExprProgram domainProgram;
  std::vector<LibraryVariant> variants;
  std::vector<LibraryEntry> entries;
  // The modules of "then" steps built from other sources than their variant's (one per manifest file).
  std::vector<std::unique_ptr<cake_module>> stepModules;

  // The target whose entries select() considers: set by setTarget (a given arch, or the device's compute
  // capability at the first launch).  Before that, every entry is eligible.
  void setTarget(int major, int minor);
  void setTargetArch(const std::string &arch);   // "sm_90a" / "sm_90"; throws LaunchError(INVALID_ARGUMENT)
  bool hasTarget() const { return targetSet_.load(std::memory_order_acquire); }
  std::string targetName() const;

  // The index of the first eligible entry whose guard holds for shape values values[0 .. shapeVars.size()-1],
  // or -1 when none does (or a guard cannot be evaluated: explain() says why).
  int select(const int64_t *values) const noexcept {
    for (size_t i = 0; i < entries.size(); ++i) {
      if (!eligible_[i].load(std::memory_order_relaxed)) continue;
      int64_t result = 0;
      if (!entries[i].program.evaluate(values, result)) return -1;
      if (result) return static_cast<int>(i);
    }
    return -1;
  }
  // The walk of select() in words; `chosen` gets select()'s answer.
  std::string explain(const int64_t *values, int *chosen) const;

  // The workspace variant `variant` needs at shape `values`; throws LaunchError(ARGUMENT) when a dim cannot be
  // evaluated or is negative.
  WorkspaceLayout workspaceLayout(size_t variant, const int64_t *values) const;
  // Launches variant `variant` with the caller's arguments: each kernel in turn on options' stream, with the
  // workspace tensors placed in [workspace, workspace + workspaceBytes) (device memory of at least
  // workspaceLayout().bytes; ignored when the variant needs none).  Throws LaunchError.
  void launchVariant(size_t variant, const cake_arg *args, size_t numArgs, const cake_launch_options *options,
                     const int64_t *values, uint64_t workspace, size_t workspaceBytes) const;

  // The shape variables' values from launch arguments (tensor dims) and explicit values; throws
  // LaunchError(ARGUMENT) naming the variable that has no value.
  void shapeValues(const cake_arg *args, size_t numArgs, const cake_launch_options *options, int64_t *out) const;
  // "M = 4096, N = 4096, K = 4096"
  std::string describeShape(const int64_t *values) const;

  void initEligibility();   // after loading: every entry eligible

private:
  std::unique_ptr<std::atomic<bool>[]> eligible_;   // per entry: its variant runs on the target
  std::atomic<bool> targetSet_{false};
  std::string target_;
  std::mutex targetMutex_;
};

// Loads `path`: a library folder (its library.json is read) or the library.json itself.  Throws LaunchError
// (IO: unreadable files; MANIFEST: a malformed library.json or variants that do not fit together).
std::unique_ptr<LibraryState> loadLibrary(const std::string &path);

}   // namespace cake::rt
