// Syntactic facts about the expressions that decide a kernel's synchronisation, read off the typed AST for
// SyncAnalysis: which loops hold synchronisation (the sync loops and tile loops), which expressions decide the
// events, what they mention, and the moduli and period shapes that suggest the period to prove.
#pragma once
#include "frontend/AST.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace cake {

// The longest period the analysis considers.
constexpr int64_t kMaxPeriod = 64;

struct SyncLoop {
  const ForStmt *loop = nullptr;
  bool symbolic = false;
  bool driven = false;               // a tile loop: encloses another symbolic sync loop (enumerated directly)
  int parent = -1;                   // index of the enclosing sync loop
  std::vector<const Expr *> exprs;   // sync-relevant expressions inside (directly or nested)
};

// The period of an expression over loop variables / counters read off its shape, as a hint for the
// period to try first (Z3 decides): constants and other names have period 1; a loop variable or counter is
// linear (with the divisor it was divided by); `x % m` and `x & (m - 1)` of a linear x / d have period d*m;
// `+`, `-`, `^`, `*` combine.  nullopt: no shape known.
struct ShapePeriod {
  enum Kind : uint8_t { Periodic, Linear } kind = Periodic;
  int64_t period = 1;   // Periodic: a period; Linear: the product of the constant divisors applied so far
};

// Does e (or a let it reads) name a declaration of this kind?
bool mentions(const Expr *e, DeclKind kind);
// Does e read which CTA runs it: its position in the grid or the SM count (block.x/y/z, num_sms)?
bool readsBlockPosition(const Expr *e);
std::optional<ShapePeriod> shapePeriod(const Expr *e, unsigned depth);
// Does e read a shape variable or a scalar parameter?
bool isSymbolic(const Expr *e);
// The constant moduli, divisors and masks applied to what varies across iterations in e.
void collectModuli(const Expr *e, std::vector<int64_t> &out);
// The lcm of the moduli up to kMaxPeriod (1 for none).
int64_t lcmOf(const std::vector<int64_t> &moduli);
// The expressions that decide the sync events of a statement: branch conditions and loop bounds around
// events, barrier and stage indices, parities, byte counts, target CTAs, multicast masks.
void collectSyncExprs(const Stmt &s, std::vector<const Expr *> &out);
// The loops of s that hold sync events, outermost first, each with its enclosing sync loop's index.
void findSyncLoops(const Stmt &s, std::vector<SyncLoop> &out, int parent = -1);

} // namespace cake
