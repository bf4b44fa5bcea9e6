// The checks of a library's dispatch table (docs/library.md, "What the build proves"), on the compiled
// variants' manifests:
//
//   kernels      the kernels of a variant that launches several agree on the parameters they share, and its
//                workspace tensors are sized by shape variables and compile-time parameters only (E0862);
//   signatures   every variant takes the same arguments (E0855): the parameters of its kernels by name,
//                without its workspace (rt::variantParams);
//   shape vars   each shape variable of the library is read from the same tensor dim in every variant that
//                has it, or from none (then the caller gives it by name) (E0856);
//   per target   for each target arch (the spec's "targets", else the variants' archs), with the entries
//                whose variant runs there, in order, and D the domain (shape variables in 0 .. 2^31-1):
//     shadowed   entry i is never chosen when  D && !g_0 && .. && !g_{i-1} && g_i  is unsatisfiable on every
//                target it runs on (E0857; notes at the earlier entries that overlap it);
//     refused    D && !g_<i && g_i && !r  satisfiable for a `requires` clause r of entry i's variant (one that
//                names only library shape variables and compile-time parameters): the guard sends a shape to
//                a variant that refuses it (E0858; the counterexample shape, a note at the clause);
//     gap        D && !(g_0 || .. || g_n)  satisfiable: a legal shape that no entry accepts (E0859).
// Every query goes to Z3 over 64-bit bit-vectors (GuardToZ3.h), so the answers are exact proofs or concrete
// counterexamples; a query Z3 cannot decide in time is reported as unproven (E0860), never passed.  A
// reachability question is first answered by a concrete shape: a grid of round and ragged sizes dispatched
// through the guards in order, the shape that reaches an entry confirmed on Z3's form of the question.
#pragma once
#include "Manifest.h"
#include "library/LibrarySpec.h"
#include "support/SourceManager.h"

#include <memory>
#include <string>
#include <vector>

namespace cake::library {

// One kernel a variant launches, in the manifest of the cubin it was compiled into (a variant's own source, or
// the source of a "then" step; several variants may share one).
struct BuiltKernel {
  std::shared_ptr<const rt::ManifestSpec> manifest;
  std::string manifestFile;           // file name in the output folder
  size_t kernel = 0;                  // index into manifest->kernels
  const rt::KernelSpec &spec() const { return manifest->kernels[kernel]; }
};

struct BuiltVariant {
  BuiltKernel first;                  // the kernel the table dispatches to
  std::vector<BuiltKernel> then;      // the kernels launched after it ("then"), in order
  std::vector<std::string> workspace; // parameters the runtime allocates ("workspace")

  const std::string &arch() const { return first.manifest->arch; }
  // Every kernel a call launches, in order.
  std::vector<const rt::KernelSpec *> kernels() const;
};

struct ShapeVarSource {
  std::string name;
  int param = -1;   // -1: given by the caller at dispatch
  int dim = -1;
};

// Signatures and shape-variable sources; returns the library's shape variables (the spec's, else those of
// the first variant's manifest that are read from a tensor dim), or an empty optional after diagnostics.
std::optional<std::vector<ShapeVarSource>>
resolveShapeVars(const LibrarySpec &spec, const std::vector<BuiltVariant> &variants, DiagnosticEngine &diags);

// The table checks above.  `sources` receives the .cake files of requires locations (for notes).
void checkDispatchTable(const LibrarySpec &spec, const std::vector<BuiltVariant> &variants,
                        const std::vector<ShapeVarSource> &shapeVars, SourceManager &sources, DiagnosticEngine &diags,
                        unsigned timeoutMs);

}   // namespace cake::library
