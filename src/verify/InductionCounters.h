// InductionCounters: mutable integer variables that count loop iterations, so the sync verifier may use
// them in barrier indices, stage indices and parities.
//
// A `var x: <int> = c0` is an induction counter when
//   - its initialiser is a compile-time constant (literals and compile-time parameters),
//   - it is assigned exactly once, by `x += c` or `x -= c` with c a non-zero compile-time constant, and
//   - that assignment is a direct statement of the body of a `for` loop L, and every construct between the
//     var's declaration and the assignment is a `for` loop (or a plain block): no `if`, no `elect`, no role -
//     so every thread that declared x executes the assignment exactly once per iteration of L.
// Then x = c0 + c * (number of iterations of L executed so far by this thread), counted across every
// enclosing loop between the declaration and L (e.g. k-tiles counted across the tiles of a persistent tile
// loop).  The sync model evaluates such a counter concretely while it unrolls the loops; SyncAnalysis
// proves every expression over it periodic in x (x -> x + P*c), which is what inserting P iterations of L
// anywhere does to the later values of x.
//
// A var that is never written keeps its constant initial value: it is recorded as a counter with c = 0.
// Any other `var` is *not* a counter; the analysis records why ("it is assigned under an 'if'", "it is
// updated with '*='", ...) so the unproven diagnostic can say so.
#pragma once
#include "frontend/AST.h"
#include "frontend/KernelInfo.h"

#include <cstdint>
#include <map>
#include <string>

namespace cake {

struct InductionCounter {
  const VarStmt *decl = nullptr;
  int64_t init = 0;
  int64_t step = 0;                    // c: +c per iteration of `loop` (0: never written, a constant)
  const ForStmt *loop = nullptr;       // L, whose iterations it counts (null when c = 0)
  const AssignStmt *update = nullptr;  // the `x += c` (null when c = 0)
};

struct InductionCounters {
  DeclMap<InductionCounter> counters;
  std::map<const Decl *, std::string> notCounters;   // var -> why it is not an induction counter
  const InductionCounter *find(const Decl *d) const {
    auto it = counters.find(d);
    return it == counters.end() ? nullptr : &it->second;
  }
};

InductionCounters findInductionCounters(const Kernel &kernel, const KernelInfo &info);

} // namespace cake
